#include <algorithm>

#include "commands.h"

namespace kvw::cli {

const std::vector<CommandSpec>& command_table() {
    static const std::vector<CommandSpec> table = {
        // One command per line, so that adding one is a one-line change.
        // clang-format off
        generate_command(),
        tokenize_command(),
        info_command(),
        perplexity_command(),
        compare_command(),
        sweep_command(),
        make_model_command(),
        run_command(),
        replay_command(),
        fork_command(),
        soak_command(),
        train_gate_command(),
        bench_decode_command(),
        bench_edits_command(),
        bench_ui_command(),
        bench_policies_command(),
        bench_wlod_command(),
        bench_kv_types_command(),
        bench_ring_command(),
        bench_history_command(),
        bench_tick_command(),
        // clang-format on
    };
    return table;
}

OptionTable common_options() {
    return {
        {"help", "", "", "print this command's usage and exit"},
        {"quiet", "", "", "log only warnings and errors (and no progress lines)"},
        {"log-level", "LEVEL", "info", "stderr log level: trace, debug, info, warn, error, off"},
    };
}

namespace {

std::string option_synopsis(const OptionSpec& o) {
    std::string s = option_word(o) + (o.value.empty() ? "" : " " + o.value);
    return o.required ? s : "[" + s + "]";
}

// Words of `help` on lines that end before column 100, each line after the first indented by
// `indent`.
std::string wrapped(const std::string& help, size_t indent) {
    std::string out, line;
    size_t start = 0;
    while (start < help.size()) {
        size_t end = help.find(' ', start);
        if (end == std::string::npos) end = help.size();
        const std::string word = help.substr(start, end - start);
        if (!line.empty() && indent + line.size() + 1 + word.size() > 99) {
            out += line + "\n" + std::string(indent, ' ');
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
        start = end + 1;
    }
    return out + line;
}

void append_option_lines(std::string& text, const OptionTable& options) {
    size_t width = 0;
    for (const OptionSpec& o : options)
        width = std::max(width, option_word(o).size() + 1 + o.value.size());
    for (const OptionSpec& o : options) {
        std::string left = option_word(o) + (o.value.empty() ? "" : " " + o.value);
        left.resize(width, ' ');
        std::string help = o.help;
        if (!o.fallback.empty()) help += " (default " + o.fallback + ")";
        text += "  " + left + "  " + wrapped(help, width + 4) + "\n";
    }
}

}  // namespace

std::string usage(const CommandSpec& command) {
    // The synopsis wraps before column 100, continuing under the first option.
    std::string line = "usage: kvw " + command.name;
    if (!command.operands.empty()) line += " " + command.operands;
    const size_t indent = line.size() + 1;
    std::string text;
    for (const OptionSpec& o : command.options) {
        const std::string word = option_synopsis(o);
        if (line.size() + 1 + word.size() > 99 && line.size() > indent) {
            text += line + "\n";
            line = std::string(indent - 1, ' ');
        }
        line += " " + word;
    }
    text += line + "\n" + command.summary + "\n";
    if (!command.options.empty()) {
        text += "options:\n";
        append_option_lines(text, command.options);
    }
    text += "common options:\n";
    append_option_lines(text, common_options());
    return text;
}

std::string overview() {
    std::string text = "usage: kvw COMMAND [options]   (kvw COMMAND --help: its options)\n";
    size_t width = 0;
    for (const CommandSpec& c : command_table()) width = std::max(width, c.name.size());
    for (const CommandSpec& c : command_table()) {
        std::string name = c.name;
        name.resize(width, ' ');
        text += "  " + name + "  " + c.summary + "\n";
    }
    text +=
        "A model is a .gguf file, a Hugging Face folder, builtin:default (the embedded\n"
        "default) or synthetic:tiny / synthetic:tinyllama-shape (random weights).\n";
    return text;
}

}  // namespace kvw::cli
