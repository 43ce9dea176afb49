#include "sampling_args.h"

namespace kvw::cli {

OptionTable sampling_options() {
    return {
        {"seed", "S", "0", "sampling seed; also seeds the random policy"},
        {"temp", "T", "0", "temperature from 0 (greedy) to 100"},
        {"top-k", "K", "0", "keep the K most likely tokens; 0 keeps all"},
        {"top-p", "P", "1", "keep the most likely tokens up to probability mass P"},
    };
}

SamplingParams sampling_from_args(const CliArgs& args) {
    SamplingParams sampling;
    sampling.temperature = float(args.get_double("temp", 0, kMaxTemperature));
    sampling.top_k = int(args.get_count("top-k", INT32_MAX));
    sampling.top_p = float(args.get_double("top-p", 0, 1));
    sampling.seed = uint64_t(args.get_count("seed", INT64_MAX));
    if (sampling.top_p <= 0) throw UsageError("need 0 < --top-p <= 1");
    return sampling;
}

}  // namespace kvw::cli
