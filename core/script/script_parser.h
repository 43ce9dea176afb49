#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/script/script.h"

namespace kvw {

// Parses a .kvs script: one command per line; blank lines and lines whose first non-blank
// character is '#' are skipped (a '#' later in a line is text: prompts and JSON may hold one).
// Words are separated by blanks; TEXT, SPEC and JSON arguments take the rest of the line.
// Everything that can be checked without a session is checked here (numbers, on|off,
// pass|fail, RoPE policy and proposer names, action JSON), so a bad script fails before it
// runs anything. Throws ScriptError naming file, line and command.
Script parse_script(std::string_view text, const std::string& file = "<text>");
// The most bytes read_script_file() takes (a script is typed by hand or written by a test).
inline constexpr uint64_t kMaxScriptBytes = uint64_t(16) << 20;
// A regular file of at most kMaxScriptBytes (a FIFO or a device is refused: CannotRead), parsed.
Script read_script_file(const std::filesystem::path& path);

}  // namespace kvw
