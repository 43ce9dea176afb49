#pragma once
#include <string>
#include <string_view>

namespace kvw {

// "context: message", or the message alone when it already begins with "context: ". An error
// passed up through the session, the worker and the script runner is named by each of them;
// where they use the same name ("rebuild"), it would otherwise appear once per layer.
std::string with_context(std::string_view context, std::string_view message);

// The text with control bytes (NUL, newlines, escape, ...) written as \xNN: a message must
// survive being read as a C string (what(), printf) and stay on one line.
std::string printable(std::string_view text);

}  // namespace kvw
