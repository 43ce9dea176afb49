#pragma once
// Rows of a weight matrix widened to float: the token embedding gather (row tokens[i] of the
// table) and the whole-matrix dequantisation that feeds cuBLAS. One thread per block of an output
// row (per element for the plain types), so the work is the same whatever the type.
#include <cstddef>
#include <cstdint>

#include "core/math/hd.h"
#include "kernels/bodies/weight_blocks.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct WidenRows {
    const void* w = nullptr;
    WeightLayout layout;
    const int32_t* source = nullptr;  // [n]: the weight row output row i takes; null: row i
    int n = 0;
    float* out = nullptr;  // [n][cols]

    Launch shape() const { return cover(size_t(n) * size_t(layout.blocks_per_row())); }

    KVW_HD void operator()(const At& at) const {
        const size_t blocks = size_t(layout.blocks_per_row());
        const size_t t = at.x();
        if (t >= size_t(n) * blocks) return;
        const size_t i = t / blocks, b = t % blocks;
        const int64_t r = source ? source[i] : int64_t(i);
        if (r < 0) return;  // an item given as an embedding: its row is the caller's
        const uint8_t* row = layout.row(w, r);
        float* o = out + i * size_t(layout.cols);
        if (layout.plain())
            o[b] = plain_weight(layout.dtype, row, int64_t(b));
        else
            dequant_weight_block(layout.dtype, row + b * size_t(layout.block_bytes),
                                 o + b * size_t(layout.block_elems));
    }
};

// x[i] = row tokens[i] of the table (a token < 0 leaves its row alone).
inline WidenRows embed_rows_body(const void* table, DType dtype, int64_t cols,
                                 const int32_t* tokens, int n, float* x) {
    return WidenRows{table, weight_layout(dtype, cols), tokens, n, x};
}

// out = the whole [rows][cols] matrix widened.
inline WidenRows dequantize_rows_body(const void* w, DType dtype, int64_t rows, int64_t cols,
                                      float* out) {
    return WidenRows{w, weight_layout(dtype, cols), nullptr, int(rows), out};
}

}  // namespace kvw::kern
