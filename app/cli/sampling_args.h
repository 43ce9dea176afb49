#pragma once
#include "cli_args.h"
#include "core/engine/sampler.h"

namespace kvw::cli {

// --temp, --top-k, --top-p, --seed, shared by the commands that sample.
OptionTable sampling_options();
// Reads them. Throws UsageError.
SamplingParams sampling_from_args(const CliArgs& args);

}  // namespace kvw::cli
