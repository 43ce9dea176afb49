#include "core/script/script_error.h"

#include <utility>

#include "core/session/error_message.h"

namespace kvw {

const char* script_error_kind_name(ScriptErrorKind kind) {
    switch (kind) {
        case ScriptErrorKind::CannotRead: return "cannot_read";
        case ScriptErrorKind::UnknownCommand: return "unknown_command";
        case ScriptErrorKind::MissingArgument: return "missing_argument";
        case ScriptErrorKind::ExtraArgument: return "extra_argument";
        case ScriptErrorKind::BadNumber: return "bad_number";
        case ScriptErrorKind::BadValue: return "bad_value";
        case ScriptErrorKind::BadJson: return "bad_json";
        case ScriptErrorKind::CommandFailed: return "command_failed";
        case ScriptErrorKind::ExpectationFailed: return "expectation_failed";
        case ScriptErrorKind::ShotMismatch: return "shot_mismatch";
    }
    return "?";
}

ScriptError::ScriptError(ScriptErrorKind kind, std::string file, int line, std::string command,
                         std::string message)
    : std::runtime_error(
          printable(file + ":" + std::to_string(line) + ": " + with_context(command, message))),
      kind_(kind),
      file_(std::move(file)),
      line_(line),
      command_(std::move(command)),
      message_(std::move(message)) {}

}  // namespace kvw
