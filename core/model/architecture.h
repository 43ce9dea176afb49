#pragma once
#include <span>
#include <string>
#include <string_view>

#include "core/math/rope_layout.h"

namespace kvw {

// One Llama-family architecture the loaders accept, and how it differs from Llama
// (docs/ARCHITECTURE.md §2.1). Every family runs the same forward pass; the differences are
// switches in ModelConfig that the loaders set from this table and the file.
struct Architecture {
    std::string_view name;  // ModelConfig::architecture; GGUF general.architecture and key prefix
    std::span<const std::string_view> hf_classes;  // config.json "architectures" entries
    RopeLayout gguf_rope;  // pairing in GGUF files (llama.cpp permutes Q/K rows for llama only)
    bool qkv_bias;         // Q, K and V projections add a bias
    bool qk_norm;          // per-head RMSNorm of Q and K before RoPE
    bool fused_qkv;        // one Q|K|V matrix; layer views split it by rows
    bool fused_gate_up;    // one gate|up matrix; layer views split it by rows
};

// The table, in the order the supported lists name them.
std::span<const Architecture> architectures();
// nullptr when the name is not in the table.
const Architecture* find_gguf_architecture(std::string_view name);
const Architecture* find_hf_architecture(std::string_view hf_class);
// "llama, qwen2, qwen3, phi3" and "LlamaForCausalLM, MistralForCausalLM, ...", for errors.
std::string supported_gguf_architectures();
std::string supported_hf_architectures();

}  // namespace kvw
