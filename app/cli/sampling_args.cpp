#include "sampling_args.h"

namespace kvw::cli {

SamplingParams sampling_from_args(const CliArgs& args) {
    SamplingParams sampling;
    sampling.temperature = float(args.get_double("temp", 0.0));
    sampling.top_k = int(args.get_count("top-k", 0, INT32_MAX));
    sampling.top_p = float(args.get_double("top-p", 1.0));
    sampling.seed = uint64_t(args.get_count("seed", 0, INT64_MAX));
    if (sampling.temperature < 0 || sampling.top_p <= 0 || sampling.top_p > 1)
        throw UsageError("need --temp >= 0 and 0 < --top-p <= 1");
    return sampling;
}

}  // namespace kvw::cli
