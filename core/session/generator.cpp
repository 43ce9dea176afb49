#include "core/session/generator.h"

#include <chrono>
#include <stdexcept>

namespace kvw {

Generator::Generator(const Transformer& transformer, SamplingParams sampling, StateOptions state)
    : state_(transformer, state), sampler_(sampling) {}

void Generator::append(std::span<const int32_t> tokens, Phase phase) {
    if (tokens.empty()) return;
    const auto start = std::chrono::steady_clock::now();
    // The prompt is tick 0 and every decoded token a tick of its own, as in a session.
    if (phase == Phase::Prefill)
        state_.append(tokens, EntryKind::Prompt, tick_);
    else
        state_.append(tokens, EntryKind::Generated, ++tick_);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    tokens_.insert(tokens_.end(), tokens.begin(), tokens.end());

    const int n = int(tokens.size());
    if (phase == Phase::Prefill) {
        timings_.prefill_items += n;
        timings_.prefill_seconds += seconds;
    } else {
        timings_.decode_items += n;
        timings_.decode_seconds += seconds;
    }
    if (hook_) hook_(phase, n, seconds);
}

void Generator::prefill(std::span<const int32_t> tokens) { append(tokens, Phase::Prefill); }

int32_t Generator::decode_next() {
    if (state_.last_logits().empty())
        throw std::logic_error("decode_next: prefill the prompt first");
    const int32_t token = sampler_.sample(state_.last_logits());
    append(std::span<const int32_t>(&token, 1), Phase::Decode);
    return token;
}

}  // namespace kvw
