#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "core/model/model_config.h"

namespace kvw {

// The largest model shape the loaders accept. Every dimension comes from a file, and the engine
// multiplies them in int (rows of q_dim = n_heads × head_dim floats, N × n_ff activations), so
// absurd values must stop at load, before anything is allocated. Each limit is far beyond any
// published Llama-family model (Llama 3.1 405B: 126 layers, width 16,384, FFN 53,248, 128
// heads of 128, vocabulary 128,256, context 131,072). See docs/ARCHITECTURE.md.
struct ModelShapeLimits {
    static constexpr int64_t kMaxLayers = 4096;
    static constexpr int64_t kMaxWidth = int64_t(1) << 20;    // n_embd, n_ff, q_dim, kv_dim
    static constexpr int64_t kMaxVocab = int64_t(1) << 24;    // as tokenizer.json ids
    static constexpr int64_t kMaxContext = int64_t(1) << 24;  // trained positions
};

// The name each shape field has in a file format, for errors.
struct ModelShapeKeys {
    const char* n_layers;
    const char* n_embd;
    const char* n_heads;
    const char* n_kv_heads;
    const char* head_dim;
    const char* n_ff;
    const char* vocab_size;
    const char* max_context;
};

// What is wrong with a shape: the key to blame and why.
struct ModelShapeFault {
    std::string key;
    std::string why;
};

// Checks every dimension of `c` against ModelShapeLimits, and the products q_dim and kv_dim
// computed in 64 bits; the first fault found, or nothing.
std::optional<ModelShapeFault> find_shape_fault(const ModelConfig& c, const ModelShapeKeys& keys);

}  // namespace kvw
