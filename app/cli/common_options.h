#pragma once
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

// Writes `result` as one line of JSON on stdout: with --json, nothing else goes there.
void print_json(const nlohmann::json& result);

}  // namespace kvw::cli
