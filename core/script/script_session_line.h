#pragma once
// The other direction of the .kvs table (script_reference.h): the line that stands for a session
// command, so that a command read from a trace or made by the window can be written into a
// script. Parsing the line gives the command back (tests/unit/test_script_reference.cpp checks
// every alternative of SessionCommand).
#include <optional>
#include <string>

#include "core/session/command/session_command.h"

namespace kvw {

// nullopt where no line says it:
//  - a Tick: `step N` runs ticks as one job the window can cancel, not a command each;
//  - SetPolicyOptions: `budget`, `gate` and `ab` each change one part of the current options;
//  - a Start from token ids, or a prompt, gist-net path or action list that is not one line
//    (a line ends at its newline and loses its surrounding blanks), or a backend name that is
//    not one word;
//  - a SetLayout with a capacity or ring options the `layout` grammar cannot carry (a capacity
//    without the ring's mode, ring options for another layout, the ring's checksum).
std::optional<std::string> script_line(const SessionCommand& command);

}  // namespace kvw
