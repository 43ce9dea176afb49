#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "core/model/dtype.h"

namespace kvw {

// One weight matrix [rows][cols], row-major, in its storage dtype (a plain float type or a
// ggml block-quantised type, docs/ARCHITECTURE.md §5.1). For a linear layer rows is the output
// size and cols the input size (the layout of both GGUF and torch.nn.Linear). Rows are
// contiguous, row_bytes() apart. The data usually points into a memory-mapped file; `owner`
// keeps whatever backs it alive.
struct WeightTensor {
    std::string name;
    DType dtype = DType::F32;
    int64_t rows = 0;
    int64_t cols = 0;
    const void* data = nullptr;
    std::shared_ptr<const void> owner;

    size_t row_bytes() const { return dtype_row_bytes(dtype, cols); }
    size_t bytes() const { return size_t(rows) * row_bytes(); }
    const uint8_t* row_ptr(int64_t r) const {
        return static_cast<const uint8_t*>(data) + size_t(r) * row_bytes();
    }
};

// Row `row` of `w` widened to float32 (w.cols values): the file's values for the plain types,
// the ggml dequantisation (core/math/dequant.h) for the quantised ones.
void weight_row_to_float(const WeightTensor& w, int64_t row, float* out);

// Rows [first, first + count) of `w` as a tensor of their own, over the same storage (no copy):
// how the loaders split fused Q|K|V and gate|up matrices. Named NAME[first:first+count].
WeightTensor row_view(const WeightTensor& w, int64_t first, int64_t count);

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
    // Present only where the config's switches say (data == nullptr otherwise).
    WeightTensor bq, bk, bv;      // [1][q_dim], [1][kv_dim], [1][kv_dim]: qkv_bias
    WeightTensor q_norm, k_norm;  // [1][head_dim] each: qk_norm

    // Every tensor the layer has, the optional ones only when present.
    std::vector<const WeightTensor*> tensors() const;
};

struct ModelWeights {
    WeightTensor token_embd;   // [vocab][n_embd]
    WeightTensor output_norm;  // [1][n_embd]
    WeightTensor output;       // [vocab][n_embd]; shares token_embd's data when tied
    std::vector<LayerWeights> layers;

    size_t total_bytes() const;
    // total_bytes() split by storage type (tied embeddings counted once), indexed by DType.
    std::array<size_t, std::size(kAllDTypes)> bytes_by_dtype() const;
};

}  // namespace kvw
