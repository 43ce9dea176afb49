#pragma once
#include <string>
#include <vector>

// One function per `kvw` command; each parses its own options and returns the exit code.
namespace kvw::cli {

using Words = std::vector<std::string>;

int cmd_generate(const Words& words);
int cmd_tokenize(const Words& words);
int cmd_info(const Words& words);
int cmd_make_model(const Words& words);
int cmd_bench(const Words& words);
int cmd_bench_edits(const Words& words);  // `kvw bench edits`, dispatched by cmd_bench
int cmd_bench_ui(const Words& words);     // `kvw bench ui`: runs kvw-bench-ui (Qt)
int cmd_run(const Words& words);
int cmd_replay(const Words& words);
int cmd_soak(const Words& words);

}  // namespace kvw::cli
