#include "core/json/bounded_parse.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/json/json_error.h"
#include "core/json/json_scan.h"

namespace kvw {
namespace {

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line L,
// column C: " prefix: the position is reported as a byte offset by JsonError, and callers
// translate it into their own line and column.
std::string syntax_detail(const nlohmann::json::parse_error& e) {
    const std::string what = e.what();
    const size_t column = what.find("column");
    const size_t colon = what.find(": ", column == std::string::npos ? 0 : column);
    return colon == std::string::npos ? what : what.substr(colon + 2);
}

// The key path of the number nlohmann could not represent: its out_of_range error (a literal
// such as 1e999, beyond a double) carries no position, so the text is parsed again with a
// callback that follows the keys until the same error stops it. Array levels add nothing to
// the path: the element of "c": [1e999] is reported as "c".
std::string path_of_overflow(std::string_view text) {
    using json = nlohmann::json;
    std::vector<std::string> keys;  // keys[d]: the key of the value at depth d + 1 ("" in arrays)
    const json::parser_callback_t follow = [&](int depth, json::parse_event_t event, json& parsed) {
        if (event == json::parse_event_t::key) {
            keys.resize(size_t(depth - 1));
            keys.push_back(parsed.get<std::string>());
        } else if (event == json::parse_event_t::object_end ||
                   event == json::parse_event_t::array_end) {
            keys.resize(std::min(keys.size(), size_t(depth)));
        }
        return true;
    };
    try {
        [[maybe_unused]] const json reparsed = json::parse(text, follow);
    } catch (const json::out_of_range&) {
    }
    std::string path;
    for (const std::string& key : keys)
        if (!key.empty()) path += (path.empty() ? "" : ".") + key;
    return path;
}

}  // namespace

template <class Json>
Json parse_bounded(std::string_view text, int max_depth) {
    if (const auto too_deep = scan_json(text, max_depth).too_deep_at)
        throw JsonError(
            JsonFaultKind::TooDeep, {},
            "arrays and objects nest deeper than " + std::to_string(max_depth) + " levels",
            uint64_t(*too_deep));
    try {
        return Json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte counts the bytes read, so the fault is at the last one read.
        throw JsonError(JsonFaultKind::Syntax, {}, syntax_detail(e),
                        uint64_t(e.byte > 0 ? e.byte - 1 : 0));
    } catch (const nlohmann::json::out_of_range&) {
        throw JsonError(JsonFaultKind::BadNumber, path_of_overflow(text),
                        "holds a number too large for a double");
    }
}

nlohmann::json parse_json_bounded(std::string_view text, int max_depth) {
    return parse_bounded<nlohmann::json>(text, max_depth);
}

nlohmann::ordered_json parse_ordered_json_bounded(std::string_view text, int max_depth) {
    return parse_bounded<nlohmann::ordered_json>(text, max_depth);
}

}  // namespace kvw
