#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/engine/sampler.h"
#include "core/engine/transformer.h"

namespace kvw {

struct GenerationTimings {
    int prefill_items = 0;
    double prefill_seconds = 0.0;
    int decode_items = 0;
    double decode_seconds = 0.0;
};

// A minimal driver for the CLI and the benchmark: a growing K/V cache per layer (rows at
// positions 0, 1, 2, ...), prefill of a prompt, then one sampled token per decode step.
// The real cache with layouts and edits is KvStore (cache/); this one only appends.
class Generator {
public:
    enum class Phase { Prefill, Decode };
    // Called after every forward pass with its phase, item count and wall-clock seconds.
    using StepHook = std::function<void(Phase phase, int items, double seconds)>;

    // capacity: rows to reserve up front (0: grow as needed).
    Generator(const Transformer& transformer, SamplingParams sampling, int capacity = 0);

    // Runs the tokens as one forward pass after the rows already cached and keeps the logits
    // of the last one. May be called again to extend the sequence.
    void prefill(std::span<const int32_t> tokens);
    // Samples the next token from the current logits, runs it through the model (so the logits
    // are ready for the following step) and returns it. Throws std::logic_error before any
    // prefill.
    int32_t decode_next();

    void set_step_hook(StepHook hook) { hook_ = std::move(hook); }

    int rows() const { return int(tokens_.size()); }
    const std::vector<int32_t>& tokens() const { return tokens_; }
    std::span<const float> logits() const { return logits_; }
    const GenerationTimings& timings() const { return timings_; }
    // Layer l's cached rows, [rows()][kv_dim], K rotated at its position.
    LayerContext layer(int l) const;

private:
    void run(std::span<const int32_t> tokens, Phase phase);

    const Transformer& transformer_;
    Sampler sampler_;
    std::vector<std::vector<float>> k_;
    std::vector<std::vector<float>> v_;
    std::vector<int32_t> tokens_;
    std::vector<float> logits_;
    GenerationTimings timings_;
    StepHook hook_;
};

}  // namespace kvw
