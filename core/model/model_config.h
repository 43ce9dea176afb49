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
    // Per-pair divisors chosen by the context (Phi-3 LongRoPE): rope_freq_divisors up to
    // rope_original_context positions, rope_long_divisors beyond; scores scaled by
    // rope_attention_factor squared.
    LongRope,
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
    // or computed from config.json's rope_scaling); LongRope: the short factors; empty otherwise.
    std::vector<float> rope_freq_divisors;
    // LongRope: [head_dim / 2], the long factors, used when the context is longer than
    // rope_original_context (llama.cpp's rule: the choice is made once for a context, so every
    // row of a cache is rotated alike and re-rotation composes).
    std::vector<float> rope_long_divisors;
    int rope_original_context = 0;
    // LongRope: what transformers multiplies cos and sin by (llama.cpp: rope.scaling.attn_factor),
    // so every score q·k is multiplied by its square. Applied to the score, not to the rotation:
    // a rotated K then keeps its norm and a K-shift stays a pure rotation.
    float rope_attention_factor = 1.0f;
    // Sliding-window attention (docs/ARCHITECTURE.md §2.1): [n_layers], how many positions back
    // a query at position p sees, keys at p - window + 1 .. p (llama.cpp's and transformers'
    // rule); 0 = the whole context. Empty when no layer has a window.
    std::vector<int32_t> layer_window;

    int window_of(int layer) const {
        return layer_window.empty() ? 0 : layer_window[size_t(layer)];
    }
    int kv_dim() const { return n_kv_heads * head_dim; }
    int q_dim() const { return n_heads * head_dim; }
    // Whether a context of `context_length` positions rotates with the long LongRoPE factors.
    bool uses_long_rope(int64_t context_length) const {
        return rope_scaling == RopeScaling::LongRope && context_length > rope_original_context;
    }
    // Everything RoPE needs for a context of `context_length` positions (only LongRope depends
    // on it); points into this config (the divisors), so keep it no longer.
    RopeParams rope(int64_t context_length) const {
        const std::vector<float>& divisors =
            uses_long_rope(context_length) ? rope_long_divisors : rope_freq_divisors;
        return {rope_theta, rope_layout,
                rope_scaling == RopeScaling::Linear ? 1.0 / double(rope_scale_factor) : 1.0,
                divisors.empty() ? nullptr : divisors.data()};
    }
};

}  // namespace kvw
