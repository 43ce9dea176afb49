#pragma once
#include <stdexcept>
#include <string>

namespace kvw {

// Every way a script can fail: while it is parsed (a line that is not a command) or while it
// runs (a command the session refused, an expectation that does not hold).
enum class ScriptErrorKind {
    CannotRead,         // the file could not be opened
    UnknownCommand,     // the first word names no command
    MissingArgument,    // fewer words than the command takes
    ExtraArgument,      // more words than the command takes
    BadNumber,          // not a non-negative integer that fits, or 0 where N >= 1 is needed
    BadValue,           // a word outside its set (on|off, pass|fail, a RoPE policy, a proposer)
    BadJson,            // inject/apply text that is not an action list
    CommandFailed,      // the session or the window refused the command
    ExpectationFailed,  // an expect line that does not hold
    ShotMismatch,       // a screenshot differs from its golden image
};

const char* script_error_kind_name(ScriptErrorKind kind);

// what() is "FILE:LINE: COMMAND: MESSAGE", the line a person (or an editor) can jump to, with
// control bytes escaped (see printable()) and COMMAND left out where MESSAGE already begins
// with it (with_context()); the accessors keep the text as given.
class ScriptError : public std::runtime_error {
public:
    ScriptError(ScriptErrorKind kind, std::string file, int line, std::string command,
                std::string message);

    ScriptErrorKind kind() const { return kind_; }
    const std::string& file() const { return file_; }
    int line() const { return line_; }
    const std::string& command() const { return command_; }  // the line as written
    const std::string& message() const { return message_; }

private:
    ScriptErrorKind kind_;
    std::string file_;
    int line_;
    std::string command_;
    std::string message_;
};

}  // namespace kvw
