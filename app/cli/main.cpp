// kvw: the headless command line of KV Workbench. Results go to stdout, log lines and progress
// to stderr, so that stdout can be piped into other tools (with --json: one JSON object).
#include <cstdio>
#include <exception>
#include <string>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli_args.h"
#include "commands.h"
#include "core/model/model_error.h"
#ifdef KVW_WITH_CUDA
#include "kernels/cuda_backend.h"
#endif

namespace {

using kvw::cli::CommandSpec;
using kvw::cli::Words;

// The command that `words` name: "generate", or two words for "bench decode". Null if none.
const CommandSpec* find_command(const Words& words, size_t& used) {
    for (const CommandSpec& c : kvw::cli::command_table()) {
        const bool two_words = c.name.find(' ') != std::string::npos;
        if (two_words && words.size() >= 2 && c.name == words[0] + " " + words[1]) {
            used = 2;
            return &c;
        }
        if (!two_words && !words.empty() && c.name == words[0]) {
            used = 1;
            return &c;
        }
    }
    return nullptr;
}

// The usage of every command whose name starts with `group` ("bench" -> its benchmarks).
std::string group_usage(const std::string& group) {
    std::string text;
    for (const CommandSpec& c : kvw::cli::command_table())
        if (c.name.rfind(group + " ", 0) == 0) text += kvw::cli::usage(c);
    return text;
}

void set_up_logging(const kvw::cli::CliArgs& args) {
    const std::string name = args.get("log-level");
    spdlog::level::level_enum level = spdlog::level::from_str(name);
    // from_str answers "off" for any word it does not know.
    if (level == spdlog::level::off && name != "off")
        throw kvw::cli::UsageError(
            "--log-level takes trace, debug, info, warn, error or off, got '" + name + "'");
    if (args.has("quiet") && level < spdlog::level::warn) level = spdlog::level::warn;
    spdlog::set_level(level);
}

int run(const Words& words) {
    if (words.empty()) {
        std::fputs(kvw::cli::overview().c_str(), stderr);
        return 2;
    }
    if (words[0] == "--help" || words[0] == "help") {
        std::fputs(kvw::cli::overview().c_str(), stdout);
        return 0;
    }
    size_t used = 0;
    const CommandSpec* command = find_command(words, used);
    if (!command) {
        const std::string group = group_usage(words[0]);
        if (group.empty()) {
            std::fprintf(stderr, "kvw: unknown command '%s'\n%s", words[0].c_str(),
                         kvw::cli::overview().c_str());
            return 2;
        }
        const bool help = words.size() == 2 && words[1] == "--help";
        std::fputs(group.c_str(), help ? stdout : stderr);
        return help ? 0 : 2;
    }
    const std::string& name = command->name;
    try {
        kvw::cli::OptionTable options = command->options;
        for (const kvw::cli::OptionSpec& o : kvw::cli::common_options()) options.push_back(o);
        const kvw::cli::CliArgs args(Words(words.begin() + ptrdiff_t(used), words.end()), options);
        if (args.has("help")) {
            std::fputs(kvw::cli::usage(*command).c_str(), stdout);
            return 0;
        }
        set_up_logging(args);
        return command->run(args);
    } catch (const kvw::cli::UsageError& e) {
        std::fprintf(stderr, "kvw %s: %s\n%s", name.c_str(), e.what(),
                     kvw::cli::usage(*command).c_str());
        return 2;
    } catch (const kvw::ModelError& e) {
        std::fprintf(stderr, "kvw %s: %s\n", name.c_str(), e.what());
        return 3;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kvw %s: error: %s\n", name.c_str(), e.what());
        return 1;
    }
}

}  // namespace

int main(int argc, char** argv) {
    spdlog::set_default_logger(spdlog::stderr_color_mt("kvw"));
    spdlog::set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
#ifdef KVW_WITH_CUDA
    kvw::register_cuda_backend();
#endif
    return run(Words(argv + 1, argv + argc));
}
