#include "core/engine/generator.h"

#include <chrono>
#include <numeric>
#include <stdexcept>

namespace kvw {

Generator::Generator(const Transformer& transformer, SamplingParams sampling, int capacity)
    : transformer_(transformer), sampler_(sampling) {
    const ModelConfig& cfg = transformer_.model().config;
    k_.resize(size_t(cfg.n_layers));
    v_.resize(size_t(cfg.n_layers));
    if (capacity > 0) {
        for (int l = 0; l < cfg.n_layers; ++l) {
            k_[l].reserve(size_t(capacity) * cfg.kv_dim());
            v_[l].reserve(size_t(capacity) * cfg.kv_dim());
        }
        tokens_.reserve(size_t(capacity));
    }
}

LayerContext Generator::layer(int l) const {
    return LayerContext{rows(), {k_[l].data()}, {v_[l].data()}};
}

void Generator::run(std::span<const int32_t> tokens, Phase phase) {
    if (tokens.empty()) return;
    std::vector<Item> items;
    std::vector<int32_t> positions(tokens.size());
    std::iota(positions.begin(), positions.end(), rows());
    for (int32_t t : tokens) items.push_back(Item::of_token(t));
    std::vector<LayerContext> context;
    for (size_t l = 0; l < k_.size(); ++l) context.push_back(layer(int(l)));

    const auto start = std::chrono::steady_clock::now();
    ForwardOutput out = transformer_.forward(items, positions, context);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    for (size_t l = 0; l < k_.size(); ++l) {
        k_[l].insert(k_[l].end(), out.k[l].begin(), out.k[l].end());
        v_[l].insert(v_[l].end(), out.v[l].begin(), out.v[l].end());
    }
    tokens_.insert(tokens_.end(), tokens.begin(), tokens.end());
    logits_ = std::move(out.logits);

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

void Generator::prefill(std::span<const int32_t> tokens) { run(tokens, Phase::Prefill); }

int32_t Generator::decode_next() {
    if (logits_.empty()) throw std::logic_error("decode_next: prefill the prompt first");
    const int32_t token = sampler_.sample(logits_);
    run(std::span<const int32_t>(&token, 1), Phase::Decode);
    return token;
}

}  // namespace kvw
