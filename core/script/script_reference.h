#pragma once
#include <span>
#include <string>
#include <string_view>

namespace kvw {

// One command of the .kvs language as `help` prints it and README's script table lists it.
struct ScriptCommandDoc {
    const char* usage;    // "step N", "guard on|off": the command word(s) and their arguments
    const char* summary;  // one line
    const char* example;  // a line that parses to this command (the reference test parses it)
};

// Every command of the language, in README's order: the one list `help` prints, from which
// the test checks that each command kind has a line, each example parses and README lists each.
std::span<const ScriptCommandDoc> script_reference();

// `help` (topic empty): every usage and summary, one per line; `help WORD`: the lines whose
// usage starts with WORD, or an empty string when none does.
std::string script_help_text(std::string_view topic);

}  // namespace kvw
