#pragma once
#include <cstdint>
#include <span>

namespace kvw {

struct SamplingParams {
    float temperature = 0.0f;  // 0: greedy (argmax, lowest id wins ties)
    int top_k = 0;             // 0: off
    float top_p = 1.0f;        // 1: off
    uint64_t seed = 0;
};

// Seeded, platform-independent sampling: its own PRNG and its own uniform draw, so a seed
// gives the same tokens on every machine.
class Sampler {
public:
    explicit Sampler(SamplingParams params);
    int32_t sample(std::span<const float> logits);
    const SamplingParams& params() const { return params_; }

private:
    SamplingParams params_;
    uint64_t state_;
};

}  // namespace kvw
