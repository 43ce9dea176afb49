#include "core/state/action_json.h"

#include <nlohmann/json.hpp>

#include "core/io/regular_file.h"
#include "core/json/bounded_parse.h"
#include "core/json/json_error.h"
#include "core/json/json_fields.h"
#include "core/json/json_scan.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace kvw {
namespace {

using nlohmann::json;

struct TextPosition {
    int line = 0;
    int column = 0;
};

TextPosition position_of(std::string_view text, size_t offset) {
    offset = std::min(offset, text.size());
    const std::string_view before = text.substr(0, offset);
    const size_t last_newline = before.rfind('\n');
    const size_t line_start = last_newline == std::string_view::npos ? 0 : last_newline + 1;
    return {int(std::count(before.begin(), before.end(), '\n')) + 1, int(offset - line_start) + 1};
}

// One value of the text, parsed with the shared depth bound; the fault's offset within the
// piece becomes a line and column of the whole text (a number beyond a double has no offset:
// the value's start, and its field, stand for it).
json parse_value(std::string_view text, JsonSpan value) {
    try {
        return parse_json_bounded(text.substr(value.begin, value.end - value.begin));
    } catch (const JsonError& e) {
        const TextPosition at = position_of(text, value.begin + e.offset().value_or(0));
        if (e.kind() == JsonFaultKind::BadNumber)
            throw ActionParseError(ActionParseErrorKind::NumberOutOfRange,
                                   "field '" + e.key() + "' " + e.detail(), at.line, at.column, -1,
                                   e.key());
        throw ActionParseError(e.kind() == JsonFaultKind::TooDeep ? ActionParseErrorKind::TooDeep
                                                                  : ActionParseErrorKind::Syntax,
                               e.detail(), at.line, at.column);
    }
}

// Where an action sits in the text, for its error messages. The line and column are counted
// only when a message needs them: counting them for every action of a long list scanned the
// text once per action.
struct ActionSite {
    int index = 0;
    std::string_view text;
    size_t offset = 0;
};

[[noreturn]] void fail(ActionParseErrorKind kind, const ActionSite& site, std::string field,
                       std::string detail) {
    const TextPosition at = position_of(site.text, site.offset);
    throw ActionParseError(kind, std::move(detail), at.line, at.column, site.index,
                           std::move(field));
}

std::string describe(const json& v) {
    if (v.is_number_float()) return "number " + v.dump();
    return v.type_name();
}

// A field read by json_as<T>, which checks its JSON type and T's range. Its JsonError becomes
// this format's own: NumberOutOfRange for an integer beyond T, WrongType for anything else (a
// number beyond a float is as unusable as a string). `expected` completes "must be ...".
template <typename T>
T read_field(const json& v, const ActionSite& site, const std::string& field,
             const char* expected) {
    try {
        return json_as<T>(v, field);
    } catch (const JsonError& e) {
        if constexpr (std::is_integral_v<T>)
            if (e.kind() == JsonFaultKind::BadNumber)
                fail(ActionParseErrorKind::NumberOutOfRange, site, field,
                     "field '" + field + "' is " + v.dump() + ", beyond " +
                         std::to_string(std::numeric_limits<T>::max()));
        fail(ActionParseErrorKind::WrongType, site, field,
             "field '" + field + "' must be " + expected + ", got " + describe(v));
    }
}

// Positions, token ids, levels and layers. A negative one is refused as such however far below
// int32 it lies, so the check comes before json_as's range check.
int32_t read_non_negative_int(const json& v, const ActionSite& site, const std::string& field) {
    if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0)
        fail(ActionParseErrorKind::NegativeNumber, site, field,
             "field '" + field + "' must not be negative, got " + v.dump());
    return read_field<int32_t>(v, site, field, "an integer");
}

std::vector<int32_t> read_int_array(const json& v, const ActionSite& site,
                                    const std::string& field) {
    if (!v.is_array())
        fail(ActionParseErrorKind::WrongType, site, field,
             "field '" + field + "' must be an array of integers, got " + describe(v));
    std::vector<int32_t> out;
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i)
        out.push_back(read_non_negative_int(v[i], site, field + "[" + std::to_string(i) + "]"));
    return out;
}

// A delete's optional "reason" (a removal_reason_name) and "score" (a finite number).
RemovalCause read_removal_cause(const json& obj, const ActionSite& site) {
    RemovalCause cause;
    if (const auto reason = obj.find("reason"); reason != obj.end()) {
        const std::string name = read_field<std::string>(*reason, site, "reason", "a string");
        const auto parsed = parse_removal_reason(name);
        if (!parsed)
            fail(ActionParseErrorKind::WrongType, site, "reason",
                 "field 'reason' names no removal reason: '" + name + "'");
        cause.reason = *parsed;
    }
    // JSON numbers are finite (parse_json_bounded refuses 1e999), so json_as's range check is
    // all a float needs.
    if (const auto score = obj.find("score"); score != obj.end())
        cause.score = read_field<float>(*score, site, "score", "a finite number");
    return cause;
}

struct ActionSchema {
    const char* name;
    std::vector<std::string> required;  // besides "action"
    std::vector<std::string> optional;  // besides "layers"
};

const std::vector<ActionSchema>& schemas() {
    static const std::vector<ActionSchema> s = {
        {"replace_pair", {"original_pos1", "original_pos2", "new_token_ids"}, {}},
        {"add", {"token_id"}, {}},
        {"delete", {"pos"}, {"reason", "score"}},
        {"insert", {"pos", "token_ids"}, {}},
        {"collapse", {"pos", "level"}, {}},
        {"expand", {"pos"}, {}},
    };
    return s;
}

Action parse_action(const json& obj, const ActionSite& site) {
    if (!obj.is_object())
        fail(ActionParseErrorKind::NotAnObject, site, {},
             std::string("must be a JSON object, got ") + describe(obj));
    const auto name_it = obj.find("action");
    if (name_it == obj.end())
        fail(ActionParseErrorKind::MissingField, site, "action", "missing field 'action'");
    const std::string name = read_field<std::string>(*name_it, site, "action", "a string");
    const auto schema = std::find_if(schemas().begin(), schemas().end(),
                                     [&](const ActionSchema& s) { return name == s.name; });
    if (schema == schemas().end())
        fail(ActionParseErrorKind::UnknownAction, site, "action",
             "unknown action '" + name +
                 "' (expected replace_pair, add, delete, insert, collapse or expand)");

    for (const auto& [key, value] : obj.items()) {
        const auto listed = [&](const std::vector<std::string>& keys) {
            return std::find(keys.begin(), keys.end(), key) != keys.end();
        };
        const bool known = key == "action" || key == "layers" || listed(schema->required) ||
                           listed(schema->optional);
        if (!known)
            fail(ActionParseErrorKind::UnknownField, site, key,
                 "unknown field '" + key + "' for action '" + name + "'");
    }
    for (const std::string& field : schema->required)
        if (!obj.contains(field))
            fail(ActionParseErrorKind::MissingField, site, field,
                 "missing field '" + field + "' for action '" + name + "'");

    Action action;
    if (name == "replace_pair") {
        action.op =
            ReplacePairAction{read_non_negative_int(obj["original_pos1"], site, "original_pos1"),
                              read_non_negative_int(obj["original_pos2"], site, "original_pos2"),
                              read_int_array(obj["new_token_ids"], site, "new_token_ids")};
    } else if (name == "add") {
        action.op = AddAction{read_non_negative_int(obj["token_id"], site, "token_id")};
    } else if (name == "insert") {
        action.op = InsertAction{read_non_negative_int(obj["pos"], site, "pos"),
                                 read_int_array(obj["token_ids"], site, "token_ids")};
    } else if (name == "collapse") {
        action.op = CollapseAction{read_non_negative_int(obj["pos"], site, "pos"),
                                   read_non_negative_int(obj["level"], site, "level")};
    } else if (name == "expand") {
        action.op = ExpandAction{read_non_negative_int(obj["pos"], site, "pos")};
    } else {
        action.op = DeleteAction{read_non_negative_int(obj["pos"], site, "pos"),
                                 read_removal_cause(obj, site)};
    }
    if (const auto layers = obj.find("layers"); layers != obj.end()) {
        action.layers = read_int_array(*layers, site, "layers");
        if (action.layers.empty())
            fail(ActionParseErrorKind::EmptyLayers, site, "layers",
                 "field 'layers' must list at least one layer (omit it for every layer)");
    }
    return action;
}

}  // namespace

const char* action_parse_error_kind_name(ActionParseErrorKind kind) {
    switch (kind) {
        case ActionParseErrorKind::CannotRead: return "CannotRead";
        case ActionParseErrorKind::Syntax: return "Syntax";
        case ActionParseErrorKind::TooDeep: return "TooDeep";
        case ActionParseErrorKind::NotAnObject: return "NotAnObject";
        case ActionParseErrorKind::MissingField: return "MissingField";
        case ActionParseErrorKind::UnknownField: return "UnknownField";
        case ActionParseErrorKind::UnknownAction: return "UnknownAction";
        case ActionParseErrorKind::WrongType: return "WrongType";
        case ActionParseErrorKind::NegativeNumber: return "NegativeNumber";
        case ActionParseErrorKind::NumberOutOfRange: return "NumberOutOfRange";
        case ActionParseErrorKind::EmptyLayers: return "EmptyLayers";
    }
    return "?";
}

namespace {

std::string full_message(const std::string& detail, int line, int column, int action_index,
                         const std::string& file) {
    std::string where;
    if (action_index >= 0) where = "action " + std::to_string(action_index);
    if (line > 0) {
        const std::string at =
            "line " + std::to_string(line) + ", column " + std::to_string(column);
        where = where.empty() ? at : where + " (" + at + ")";
    }
    if (!file.empty()) where = where.empty() ? file : file + ": " + where;
    return where.empty() ? detail : where + ": " + detail;
}

}  // namespace

ActionParseError::ActionParseError(ActionParseErrorKind kind, std::string detail, int line,
                                   int column, int action_index, std::string field,
                                   std::string file)
    : std::runtime_error(full_message(detail, line, column, action_index, file)),
      kind_(kind),
      detail_(std::move(detail)),
      line_(line),
      column_(column),
      action_index_(action_index),
      field_(std::move(field)),
      file_(std::move(file)) {}

ActionList parse_action_list(std::string_view text) {
    // The scan's depth goes unused: parse_value() bounds each value's depth as it parses it, so a
    // syntax error in one value is still reported before a later value's depth.
    const JsonScan scan = scan_json(text, kMaxJsonDepth);
    const std::vector<JsonSpan>& values = scan.values;

    ActionList list;
    auto site_at = [&](int index, size_t offset) { return ActionSite{index, text, offset}; };
    if (!values.empty() && text[values[0].begin] == '[') {
        const json array = parse_value(text, values[0]);
        if (values.size() > 1) {
            const TextPosition at = position_of(text, values[1].begin);
            throw ActionParseError(ActionParseErrorKind::Syntax,
                                   "unexpected text after the action array", at.line, at.column);
        }
        // The array parsed, so the scan found its elements exactly.
        for (size_t i = 0; i < array.size(); ++i)
            list.push_back(parse_action(array[i], site_at(int(i), scan.array_elements.at(i))));
        return list;
    }
    for (size_t i = 0; i < values.size(); ++i) {
        const json value = parse_value(text, values[i]);
        list.push_back(parse_action(value, site_at(int(i), values[i].begin)));
    }
    return list;
}

ActionList read_action_list_file(const std::filesystem::path& path) {
    std::string text;
    try {
        text = read_regular_file(path, kMaxActionFileBytes);
    } catch (const FileReadError& e) {
        throw ActionParseError(ActionParseErrorKind::CannotRead,
                               e.kind() == FileFaultKind::CannotOpen
                                   ? "cannot open the file: " + e.detail()
                                   : e.detail(),
                               0, 0, -1, {}, path.string());
    }
    try {
        return parse_action_list(text);
    } catch (const ActionParseError& e) {
        throw ActionParseError(e.kind(), e.detail(), e.line(), e.column(), e.action_index(),
                               e.field(), path.string());
    }
}

namespace {

json action_object(const Action& action) {
    json obj = std::visit(
        [](const auto& op) -> json {
            using T = std::decay_t<decltype(op)>;
            if constexpr (std::is_same_v<T, ReplacePairAction>)
                return {{"action", "replace_pair"},
                        {"original_pos1", op.original_pos1},
                        {"original_pos2", op.original_pos2},
                        {"new_token_ids", op.new_token_ids}};
            else if constexpr (std::is_same_v<T, AddAction>)
                return {{"action", "add"}, {"token_id", op.token_id}};
            else if constexpr (std::is_same_v<T, InsertAction>)
                return {{"action", "insert"}, {"pos", op.pos}, {"token_ids", op.token_ids}};
            else if constexpr (std::is_same_v<T, CollapseAction>)
                return {{"action", "collapse"}, {"pos", op.pos}, {"level", op.level}};
            else if constexpr (std::is_same_v<T, ExpandAction>)
                return {{"action", "expand"}, {"pos", op.pos}};
            else {
                json del = {{"action", "delete"}, {"pos", op.pos}};
                if (op.cause.reason != RemovalReason::Deleted)
                    del["reason"] = removal_reason_name(op.cause.reason);
                if (op.cause.score) del["score"] = *op.cause.score;
                return del;
            }
        },
        action.op);
    if (!action.layers.empty()) obj["layers"] = action.layers;
    return obj;
}

}  // namespace

std::string to_json(const ActionList& list) {
    json array = json::array();
    for (const Action& action : list) array.push_back(action_object(action));
    return array.dump();
}

std::string to_json(const Action& action) { return action_object(action).dump(); }

}  // namespace kvw
