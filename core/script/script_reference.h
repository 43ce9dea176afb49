#pragma once
// The .kvs language's one table (ARCHITECTURE §10): per command its word(s), the kind it parses
// to, its usage, help line and example, and the reader of its arguments. The parser, `help`,
// the window's Help ▸ Script language and README's script table (tested) all come from it. A
// line that is one session command parses to kind Session and the runner posts it as it is, so
// adding a session command to the language is one row here (and its line in
// script_session_line.cpp); another command is one row and its case in the runner.
#include <span>
#include <string>
#include <string_view>

#include "core/script/script.h"
#include "core/script/script_line_reader.h"

namespace kvw {

struct ScriptCommandForm {
    std::string_view word;   // what a line starts with: "step", "expect rows", "ab"
    ScriptCommandKind kind;  // what it parses to (Session: the reader sets the command)
    const char* usage;       // "step N", "guard on|off": the word(s) and their arguments
    std::string summary;     // one line (names of layouts, types, policies from their tables)
    const char* example;     // a line that parses to this command (the reference test parses it)
    // Reads the arguments after `word` into the command (whose kind is set); the parser then
    // refuses words left over.
    void (*parse)(LineReader& in, ScriptCommand& c);
};

// Every command of the language, in README's order. A word may have two rows (`ab` and
// `ab off`): the first one's reader takes both forms.
std::span<const ScriptCommandForm> script_reference();

// `help` (topic empty): every usage and summary, one per line; `help WORD`: the lines whose
// usage starts with WORD, or an empty string when none does.
std::string script_help_text(std::string_view topic);

}  // namespace kvw
