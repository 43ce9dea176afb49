#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/engine/sampler.h"
#include "core/engine/transformer.h"
#include "core/state/state_manager.h"

namespace kvw {

struct GenerationTimings {
    int prefill_items = 0;
    double prefill_seconds = 0.0;
    int decode_items = 0;
    double decode_seconds = 0.0;
};

// Prefill and decode for `kvw generate` and `kvw bench decode` on the workbench's own path
// (docs/ARCHITECTURE.md §5.2): a StateManager (cache layout, K/V storage types, mirror and
// ledger) whose append() writes the prompt as a tick-0 Prompt and every sampled token as a
// Generated row, as a session tick's Step 4 does. There is no other decode loop.
class Generator {
public:
    enum class Phase { Prefill, Decode };
    // Called after every append with its phase, item count and wall-clock seconds.
    using StepHook = std::function<void(Phase phase, int items, double seconds)>;

    // state.capacity: rows to allocate (0: the model's context, checked against the budget).
    Generator(const Transformer& transformer, SamplingParams sampling, StateOptions state = {});

    // Appends the tokens after the rows already cached as one forward pass and keeps the
    // logits of the last one. May be called again to extend the sequence.
    void prefill(std::span<const int32_t> tokens);
    // Samples the next token from the current logits, appends it (so the logits are ready for
    // the following step) and returns it. Throws std::logic_error before any prefill.
    int32_t decode_next();

    void set_step_hook(StepHook hook) { hook_ = std::move(hook); }

    int rows() const { return state_.rows(0); }
    const std::vector<int32_t>& tokens() const { return tokens_; }
    std::span<const float> logits() const { return state_.last_logits(); }
    const GenerationTimings& timings() const { return timings_; }
    const StateManager& state() const { return state_; }

private:
    void append(std::span<const int32_t> tokens, Phase phase);

    StateManager state_;
    Sampler sampler_;
    std::vector<int32_t> tokens_;
    int64_t tick_ = 0;
    GenerationTimings timings_;
    StepHook hook_;
};

}  // namespace kvw
