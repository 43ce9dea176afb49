#pragma once
#include <cstdint>
#include <string>

#include "core/math/rope_layout.h"

namespace kvw {

struct ModelConfig {
    std::string architecture = "llama";
    std::string name;
    int n_layers = 0;
    int n_embd = 0;  // hidden size
    int n_heads = 0;
    int n_kv_heads = 0;  // grouped-query attention: n_heads % n_kv_heads == 0
    int head_dim = 0;    // n_embd / n_heads
    int n_ff = 0;        // SwiGLU inner size
    int vocab_size = 0;
    int max_context = 0;  // trained context length
    float rope_theta = 10000.0f;
    float rms_eps = 1e-5f;
    RopeLayout rope_layout = RopeLayout::Interleaved;

    int kv_dim() const { return n_kv_heads * head_dim; }
    int q_dim() const { return n_heads * head_dim; }
};

}  // namespace kvw
