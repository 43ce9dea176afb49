#pragma once
#include <string>
#include <vector>

#include "cli_args.h"

// The `kvw` commands. Each cmd_NAME.cpp defines its command — name, operands, summary, option
// table and the function that runs it — and command_table() lists them; a new command is one
// file plus one line there. main.cpp parses with the command's table (plus common_options())
// and the usage text is written from the same table.
namespace kvw::cli {

using Words = std::vector<std::string>;

struct CommandSpec {
    std::string name;      // "generate"; a benchmark is "bench decode"
    std::string operands;  // the positional words, as the usage shows them ("TEXT", "[PATH]")
    std::string summary;
    OptionTable options;  // the command's own; common_options() are added to every command
    int (*run)(const CliArgs& args) = nullptr;
};

CommandSpec generate_command();
CommandSpec tokenize_command();
CommandSpec info_command();
CommandSpec perplexity_command();
CommandSpec make_model_command();
CommandSpec run_command();
CommandSpec replay_command();
CommandSpec fork_command();
CommandSpec soak_command();
CommandSpec train_gate_command();
CommandSpec bench_decode_command();
CommandSpec bench_edits_command();
CommandSpec bench_ui_command();
CommandSpec compare_command();
CommandSpec sweep_command();
CommandSpec bench_policies_command();
CommandSpec bench_wlod_command();
CommandSpec bench_history_command();
CommandSpec bench_tick_command();
CommandSpec bench_kv_types_command();
CommandSpec bench_ring_command();

// Every command, in the order `kvw --help` lists them.
const std::vector<CommandSpec>& command_table();

// --help, --quiet, --log-level: taken by every command (main.cpp acts on them).
OptionTable common_options();

// "usage: kvw NAME ..." and one line per option, from the command's table.
std::string usage(const CommandSpec& command);
// Every command's one-line synopsis and summary.
std::string overview();

}  // namespace kvw::cli
