#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/model/dtype.h"

namespace kvw {

// One weight matrix [rows][cols], row-major, in its storage dtype. For a linear layer rows is
// the output size and cols the input size (the layout of both GGUF and torch.nn.Linear).
// The data usually points into a memory-mapped file; `owner` keeps whatever backs it alive.
struct WeightTensor {
    std::string name;
    DType dtype = DType::F32;
    int64_t rows = 0;
    int64_t cols = 0;
    const void* data = nullptr;
    std::shared_ptr<const void> owner;

    size_t bytes() const { return size_t(rows) * size_t(cols) * dtype_size(dtype); }
    const uint8_t* row_ptr(int64_t r) const {
        return static_cast<const uint8_t*>(data) + size_t(r) * size_t(cols) * dtype_size(dtype);
    }
};

struct LayerWeights {
    WeightTensor attn_norm;  // [1][n_embd]
    WeightTensor wq;         // [q_dim][n_embd]
    WeightTensor wk;         // [kv_dim][n_embd]
    WeightTensor wv;         // [kv_dim][n_embd]
    WeightTensor wo;         // [n_embd][q_dim]
    WeightTensor ffn_norm;   // [1][n_embd]
    WeightTensor w_gate;     // [n_ff][n_embd]
    WeightTensor w_up;       // [n_ff][n_embd]
    WeightTensor w_down;     // [n_embd][n_ff]
};

struct ModelWeights {
    WeightTensor token_embd;   // [vocab][n_embd]
    WeightTensor output_norm;  // [1][n_embd]
    WeightTensor output;       // [vocab][n_embd]; shares token_embd's data when tied
    std::vector<LayerWeights> layers;

    size_t total_bytes() const;
};

}  // namespace kvw
