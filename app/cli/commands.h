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

}  // namespace kvw::cli
