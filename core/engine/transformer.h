#pragma once
#include <memory>
#include <span>
#include <vector>

#include "core/backend/attention_kernels.h"
#include "core/backend/backend.h"
#include "core/backend/thread_pool.h"
#include "core/engine/forward_types.h"
#include "core/model/model.h"

namespace kvw {

// The single forward primitive (ARCHITECTURE §5): new items at given positions attend to each
// layer's context rows and then causally to each other. It serves prefill (empty context),
// decode, K/V for insertions, rebuilds, suffix recomputes and teacher-forced scoring (logits of
// several items, ForwardOptions::logit_items).
//
// The matrix products go through the Backend; the row maths (core/math) and attention
// (core/backend/attention_kernels.h) run on the host, attention spread over K/V heads and query
// blocks with the transformer's own thread pool. Every step has
// a fixed summation order and the backend's matmul does not depend on how many items are
// multiplied together, so prefill followed by decode gives the same numbers as one pass.
class Transformer {
public:
    // threads: size of the pool used for attention and the row maths; 0 = every core.
    // context_length: how many positions the caller's context holds (a session's capacity, a
    // scorer's window); 0 = the model's trained context, as llama.cpp takes it when none is
    // given. Only LongRoPE depends on it (ModelConfig::rope), chosen here once so that every
    // row this engine rotates, and every K-shift, uses the same factors.
    Transformer(std::shared_ptr<const Model> model, Backend& backend, int threads = 0,
                int64_t context_length = 0);

    // positions.size() == items.size() > 0; context.size() == n_layers (rows may be 0).
    // Token ids must lie inside the vocabulary, embeddings hold n_embd floats and
    // 1 <= logit_items <= n when logits are asked for; otherwise std::invalid_argument says
    // what is wrong.
    ForwardOutput forward(std::span<const Item> items, std::span<const int32_t> positions,
                          std::span<const LayerContext> context,
                          const ForwardOptions& options = {}) const;

    const Model& model() const { return *model_; }
    // The token embedding row of `token` widened to float (n_embd floats); the built-in gists
    // pool these. Throws std::invalid_argument outside the vocabulary.
    std::vector<float> token_embedding(int32_t token) const;
    Backend& backend() const { return backend_; }
    // How this engine rotates (for its context length): what a K-shift or an un-rotation of a
    // cached K must use too.
    const RopeParams& rope() const { return rope_; }

private:
    void embed(std::span<const Item> items, float* x) const;
    void attention(const LayerContext& ctx, int n, std::span<const int32_t> positions, int window,
                   const float* q, const float* k_new, const float* v_new, float* out,
                   float* mass) const;

    std::shared_ptr<const Model> model_;
    Backend& backend_;
    RopeParams rope_;
    // 1/sqrt(head_dim), times LongRoPE's attention factor squared.
    float score_scale_ = 1.0f;
    std::unique_ptr<ThreadPool> pool_;
    // The fastest attention kernel this CPU runs, chosen once.
    const cpu::AttentionKernel& attention_kernel_ = cpu::best_attention_kernel();
    // Norm weights widened to float once, whatever their storage dtype.
    std::vector<std::vector<float>> attn_norm_;
    std::vector<std::vector<float>> ffn_norm_;
    // The optional per-layer vectors, widened likewise (empty where the config's switch is off).
    struct LayerExtras {
        std::vector<float> bq, bk, bv, q_norm, k_norm;
    };
    std::vector<LayerExtras> extras_;
    std::vector<float> output_norm_;
};

}  // namespace kvw
