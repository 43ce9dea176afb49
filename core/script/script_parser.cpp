#include "core/script/script_parser.h"

#include <algorithm>

#include "core/io/regular_file.h"
#include "core/script/script_error.h"
#include "core/script/script_line_reader.h"
#include "core/script/script_reference.h"

namespace kvw {
namespace {

// The table row a line starts with: its first word, or its first two where the word is only
// ever followed by a second one (`expect invariant`, `expect rows`, `expect tick`).
const ScriptCommandForm& form_of(LineReader& in) {
    const std::string word = in.word("a command");
    const std::span<const ScriptCommandForm> forms = script_reference();
    for (const ScriptCommandForm& form : forms)
        if (form.word == word) return form;
    std::string seconds;  // the words that follow `word` in two-word commands
    for (const ScriptCommandForm& form : forms)
        if (form.word.starts_with(word + " "))
            seconds += std::string(seconds.empty() ? "" : ", ") +
                       std::string(form.word.substr(word.size() + 1));
    if (seconds.empty()) in.fail(ScriptErrorKind::UnknownCommand, "unknown command '" + word + "'");
    const std::string second = in.word(seconds.c_str());
    for (const ScriptCommandForm& form : forms)
        if (form.word == word + " " + second) return form;
    in.fail(ScriptErrorKind::UnknownCommand, word + " takes " + seconds + ", not '" + second + "'");
}

}  // namespace

Script parse_script(std::string_view text, const std::string& file) {
    Script script;
    script.file = file;
    int line_no = 0;
    while (!text.empty()) {
        const size_t eol = std::min(text.find('\n'), text.size());
        const std::string_view line = text.substr(0, eol);
        text.remove_prefix(std::min(eol + 1, text.size()));
        ++line_no;
        const std::string_view body = trim_blanks(line);
        if (body.empty() || body.front() == '#') continue;

        LineReader in(body, file, line_no);
        ScriptCommand command;
        command.line = line_no;
        command.source = std::string(in.source());
        const ScriptCommandForm& form = form_of(in);
        command.kind = form.kind;
        form.parse(in, command);
        in.end();
        script.commands.push_back(std::move(command));
    }
    return script;
}

Script read_script_file(const std::filesystem::path& path) {
    std::string text;
    try {
        text = read_regular_file(path, kMaxScriptBytes);
    } catch (const FileReadError& e) {
        throw ScriptError(ScriptErrorKind::CannotRead, path.string(), 0, "(file)",
                          "cannot read the script: " + e.detail());
    }
    return parse_script(text, path.string());
}

}  // namespace kvw
