#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/math/rope.h"

namespace kvw {

// RoPE scaling a checkpoint declares (docs/ARCHITECTURE.md §2.1).
enum class RopeScaling : uint8_t {
    None,
    Linear,  // positions divided by rope_scale_factor
    Llama3,  // per-pair frequency divisors (rope_freq_divisors)
};

struct ModelConfig {
    std::string architecture = "llama";
    std::string name;
    int n_layers = 0;
    int n_embd = 0;  // hidden size
    int n_heads = 0;
    int n_kv_heads = 0;  // grouped-query attention: n_heads % n_kv_heads == 0
    int head_dim = 0;    // n_embd / n_heads unless the file says otherwise (Qwen3)
    int n_ff = 0;        // SwiGLU inner size
    int vocab_size = 0;
    int max_context = 0;  // trained context length
    float rope_theta = 10000.0f;
    float rms_eps = 1e-5f;
    RopeLayout rope_layout = RopeLayout::Interleaved;
    // Switches of the one Llama-family forward (docs/ARCHITECTURE.md §2.1), all off for Llama.
    bool qkv_bias = false;  // Q, K and V add a bias after their projections (Qwen2)
    bool qk_norm = false;   // each head of Q and K is RMS-normalised before RoPE (Qwen3)
    RopeScaling rope_scaling = RopeScaling::None;
    float rope_scale_factor = 1.0f;  // the declared factor (Linear, Llama3)
    // Llama3: [head_dim / 2], what each pair's frequency is divided by (GGUF rope_freqs.weight,
    // or computed from config.json's rope_scaling); empty otherwise.
    std::vector<float> rope_freq_divisors;
    // Sliding-window attention (docs/ARCHITECTURE.md §2.1): [n_layers], how many positions back
    // a query at position p sees, keys at p - window + 1 .. p (llama.cpp's and transformers'
    // rule); 0 = the whole context. Empty when no layer has a window.
    std::vector<int32_t> layer_window;

    int window_of(int layer) const {
        return layer_window.empty() ? 0 : layer_window[size_t(layer)];
    }
    int kv_dim() const { return n_kv_heads * head_dim; }
    int q_dim() const { return n_heads * head_dim; }
    // Everything RoPE needs; points into this config (rope_freq_divisors), so keep it no longer.
    RopeParams rope() const {
        return {rope_theta, rope_layout,
                rope_scaling == RopeScaling::Linear ? 1.0 / double(rope_scale_factor) : 1.0,
                rope_freq_divisors.empty() ? nullptr : rope_freq_divisors.data()};
    }
};

}  // namespace kvw
