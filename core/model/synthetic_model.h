#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/gguf_types.h"
#include "core/model/mapped_file.h"
#include "core/model/model_config.h"

namespace kvw {

// The project's own llama models, written as GGUF in memory by a deterministic writer and read
// by the ordinary GGUF loader.
struct SyntheticSpec {
    std::string name;      // "tiny" or "tinyllama-shape"
    ModelConfig config;    // vocab_size included; the writer builds a vocabulary of that size
    GgufType weight_type;  // of the matrices (any type, quantised ones too); norms are F32
    uint64_t seed;         // the weights and nothing else depend on it
};

// "tiny" (4 layers, 256 wide, 8 heads, 4 KV heads, F32 weights, 2048 tokens) and
// "tinyllama-shape" (TinyLlama-1.1B's shape, F16 weights), each optionally followed by
// ":TYPE" to choose the matrices' type (gguf_type_from_name: f32, f16, bf16, q8_0, q4_0,
// q4_k, q6_k), e.g. "tinyllama-shape:q4_k". Both models' widths are multiples of 256, so
// every type's blocks fit their rows.
// Throws ModelError(CannotOpen) for any other name.
SyntheticSpec synthetic_spec(std::string_view name);
SyntheticSpec synthetic_spec(std::string_view name, GgufType weight_type);

// A complete llama GGUF (llama.* keys, tokenizer.ggml.* vocabulary, llama.cpp tensor names);
// the same spec always gives the same bytes. Weights are normal-ish with std 1/sqrt(fan_in)
// (embeddings std 1), norm weights near 1.
std::vector<uint8_t> write_synthetic_gguf(const SyntheticSpec& spec);

// The written file as a ByteSource named "synthetic:" + the name (or the spec's name).
std::shared_ptr<const ByteSource> synthetic_source(const SyntheticSpec& spec);
std::shared_ptr<const ByteSource> synthetic_source(std::string_view name);

}  // namespace kvw
