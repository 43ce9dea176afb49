#pragma once
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/state/action.h"

namespace kvw {

// Every way an action-list text can be wrong.
enum class ActionParseErrorKind {
    CannotRead,        // the file could not be opened or read
    Syntax,            // not JSON: line and column say where
    TooDeep,           // arrays/objects nested deeper than kMaxJsonDepth: line and column say where
    NotAnObject,       // an action (or the top-level value) is not a JSON object
    MissingField,      // a required field is absent ("action", "pos", ...)
    UnknownField,      // a field that the action does not take
    UnknownAction,     // "action" names none of replace_pair, add, delete
    WrongType,         // a field has the wrong JSON type (a string where an integer goes...)
    NegativeNumber,    // a position, token id or layer below zero
    NumberOutOfRange,  // an integer that does not fit in 32 bits
    EmptyLayers,       // "layers": [] (omit the field to mean every layer)
};

const char* action_parse_error_kind_name(ActionParseErrorKind kind);

// A parse failure. line/column (1-based; 0 = not known) locate a syntax error, or the start of
// the faulty action's object; action_index (0-based; -1 = none) and field (empty = none;
// "new_token_ids[2]" for an array element) name a semantic fault; file is set when the text
// came from read_action_list_file(). what() says all of it in one line.
class ActionParseError : public std::runtime_error {
public:
    ActionParseError(ActionParseErrorKind kind, std::string detail, int line = 0, int column = 0,
                     int action_index = -1, std::string field = {}, std::string file = {});

    ActionParseErrorKind kind() const { return kind_; }
    int line() const { return line_; }
    int column() const { return column_; }
    int action_index() const { return action_index_; }
    const std::string& field() const { return field_; }
    const std::string& detail() const { return detail_; }
    const std::string& file() const { return file_; }

private:
    ActionParseErrorKind kind_;
    std::string detail_;
    int line_;
    int column_;
    int action_index_;
    std::string field_;
    std::string file_;
};

// Parses an action list in the original format:
//   {"action":"replace_pair","original_pos1":45,"original_pos2":46,"new_token_ids":[1234]}
//   {"action":"add","token_id":42}
//   {"action":"delete","pos":12}
//   {"action":"insert","pos":12,"token_ids":[5,6]}   (this tool's addition: before row 12)
// each optionally with "layers":[...]. The text is one JSON array of such objects, one object,
// or a sequence of objects (NDJSON, one per line; any whitespace between them is accepted).
// Empty text (only whitespace) is an empty list. Only the syntax and the schema are checked
// here; whether the list fits a sequence is validate_action_list()'s job.
// Throws ActionParseError.
ActionList parse_action_list(std::string_view text);
// The most bytes read_action_list_file() takes: an action is 40-100 bytes, so a million of them.
inline constexpr uint64_t kMaxActionFileBytes = uint64_t(256) << 20;
// A regular file of at most kMaxActionFileBytes (a FIFO or a device is refused: CannotRead),
// parsed as parse_action_list() does.
ActionList read_action_list_file(const std::filesystem::path& path);

// One line of compact JSON: an array in the format above, fields in a fixed order, "layers"
// only when restricted. parse_action_list(to_json(list)) == list.
std::string to_json(const ActionList& list);
std::string to_json(const Action& action);  // one object, for logs

}  // namespace kvw
