#pragma once
// Event name -> decoder, one row per alternative of SessionCommand, in its order; the names
// replay, `kvw replay`'s messages and the tests know are read from here.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json/json_fields.h"
#include "core/session/command/session_command.h"

namespace kvw {

struct CommandRow {
    std::string_view event;
    // The command an event of this name records; nullopt for a command the session refused
    // whose arguments do not read back (Inject::from_json): there is nothing to repeat.
    std::optional<SessionCommand> (*decode)(const JsonFields& event, size_t line,
                                            const std::string& file);
};

std::span<const CommandRow> command_table();
std::vector<std::string_view> command_event_names();
// nullptr for a name no command has.
const CommandRow* find_command_row(std::string_view event);

// The command a trace event (never the header) records, by its "event". Every fault is a
// TraceError naming `line` of `file` and the key: an unknown event name, a key absent or of
// the wrong type, a name no value has.
std::optional<SessionCommand> decode_command(const nlohmann::json& event, size_t line,
                                             const std::string& file);

}  // namespace kvw
