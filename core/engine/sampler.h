#pragma once
#include <cstdint>
#include <span>

namespace kvw {

// Beyond this a temperature draws as uniformly as infinity would, and 1e39 became "inf" as a
// float: refused (Sampler, kvw's --temp).
inline constexpr float kMaxTemperature = 100.0f;

struct SamplingParams {
    float temperature = 0.0f;  // 0: greedy (argmax, lowest id wins ties)
    int top_k = 0;             // 0: off
    float top_p = 1.0f;        // 1: off
    uint64_t seed = 0;
};

// Seeded, platform-independent sampling: its own PRNG and its own uniform draw, so a seed
// gives the same tokens on every machine.
//
// Order of operations: temperature 0 returns the argmax without drawing. Otherwise the
// candidates are the top_k highest logits (all when 0), then, when top_p < 1, the smallest set
// of the most probable ones whose probability reaches top_p; the token is drawn from the
// softmax of logit / temperature restricted to the candidates. Ties order by lower id.
// Logits must be finite; sample throws std::invalid_argument for an empty span, the
// constructor for a temperature below 0 or not finite, a negative top_k, a top_p outside (0, 1].
class Sampler {
public:
    explicit Sampler(SamplingParams params);
    int32_t sample(std::span<const float> logits);
    const SamplingParams& params() const { return params_; }

private:
    uint64_t next_u64();  // splitmix64
    double uniform();     // [0, 1) with 53 random bits

    SamplingParams params_;
    uint64_t state_;
};

}  // namespace kvw
