#pragma once
#include <memory>
#include <span>
#include <vector>

#include "core/backend/backend.h"
#include "core/backend/backend_array.h"
#include "core/engine/forward_output.h"
#include "core/engine/forward_types.h"
#include "core/model/model.h"

namespace kvw {

// The single forward primitive (ARCHITECTURE §5): new items at given positions attend to each
// layer's context rows and then causally to each other. It serves prefill (empty context),
// decode, K/V for insertions, rebuilds, suffix recomputes and teacher-forced scoring (logits of
// several items, ForwardOptions::logit_items).
//
// Every step is an op of the Backend (core/backend/backend.h), on activations in the backend's
// memory: only the new K/V rows, the logits and the attention mass come back to the host
// (docs/ARCHITECTURE.md §18). Every op has a fixed summation order and the backend's matmul does
// not depend on how many items are multiplied together, so prefill followed by decode gives the
// same numbers as one pass.
class Transformer {
public:
    // context_length: how many positions the caller's context holds (a session's capacity, a
    // scorer's window); 0 = the model's trained context, as llama.cpp takes it when none is
    // given. Only LongRoPE depends on it (ModelConfig::rope), chosen here once so that every
    // row this engine rotates, and every K-shift, uses the same factors.
    Transformer(std::shared_ptr<const Model> model, Backend& backend, int64_t context_length = 0);

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
    std::shared_ptr<const Model> model_;
    Backend& backend_;
    RopeParams rope_;
    // 1/sqrt(head_dim), times LongRoPE's attention factor squared.
    float score_scale_ = 1.0f;
    // The per-layer vectors in the backend's memory, widened to float once whatever their
    // storage dtype: the norms, and the optional biases and Q/K norms (empty where the config's
    // switch is off).
    struct LayerVectors {
        BackendArray<float> attn_norm, ffn_norm, bq, bk, bv, q_norm, k_norm;
    };
    std::vector<LayerVectors> layers_;
    BackendArray<float> output_norm_;
};

}  // namespace kvw
