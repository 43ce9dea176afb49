#pragma once
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_args.h"

// Options several commands share, written once.
namespace kvw::cli {

// --model SPEC, defaulting to the embedded model.
OptionSpec model_option();
// --backend NAME.
OptionSpec backend_option(const std::string& fallback);
// --json: the command's result as one JSON object on stdout.
OptionSpec json_option();

// Each of the named output options that was given must be writable now (check_writable), before
// the command's work: a path that fails after a long run loses the run. The error names the
// option: "--out: cannot write no/dir/x.csv: No such file or directory". `what` is the word
// an operand is named by (make-model's OUT) instead.
void check_output_options(const CliArgs& args, std::initializer_list<const char*> names);
void check_output_path(const std::string& what, const std::string& path);

// Writes `result` as one line of JSON on stdout: with --json, nothing else goes there.
void print_json(const nlohmann::json& result);

}  // namespace kvw::cli
