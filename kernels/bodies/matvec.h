#pragma once
// y[t][r] = x[t] · w[r] for weights in their file layout, one thread per output (item, row)
// reading its weight row alone: a block type is widened a block at a time (weight_blocks.h). The
// sum is the CPU matmul's (core/backend/matmul_kernels.h): eight float lanes, lane l summing the
// terms k ≡ l (mod 8) in increasing k, each product rounded before it is added (no FMA, as the
// scalar CPU kernel), then ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)). So it gives the scalar CPU
// kernel's bits. Meant for decode, where n is small.
#include <cstddef>
#include <cstdint>

#include "core/math/hd.h"
#include "kernels/bodies/weight_blocks.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct MatVec {
    const void* w = nullptr;  // [rows] rows of layout.row_bytes
    WeightLayout layout;
    int64_t rows = 0;
    const float* x = nullptr;  // [n][cols]
    int n = 0;
    float* y = nullptr;  // [n][rows]

    Launch shape() const { return cover(size_t(n) * size_t(rows)); }

    KVW_HD void operator()(const At& at) const {
        const size_t t = at.x();
        if (t >= size_t(n) * size_t(rows)) return;
        const int64_t r = int64_t(t % size_t(rows)), cols = layout.cols;
        const float* xt = x + t / size_t(rows) * size_t(cols);
        const uint8_t* row = layout.row(w, r);
        float lane[8] = {};
        if (layout.plain()) {
            const int64_t full = cols / 8 * 8;
            for (int64_t k = 0; k < full; k += 8)
                for (int l = 0; l < 8; ++l)
                    lane[l] += plain_weight(layout.dtype, row, k + l) * xt[k + l];
            for (int l = 0; l < 8; ++l)
                if (full + l < cols)
                    lane[l] += plain_weight(layout.dtype, row, full + l) * xt[full + l];
        } else {
            float block[kMaxBlockElems];
            for (int64_t b = 0; b < layout.blocks_per_row(); ++b) {
                dequant_weight_block(layout.dtype, row + size_t(b) * size_t(layout.block_bytes),
                                     block);
                const float* xb = xt + b * layout.block_elems;
                for (int e = 0; e < layout.block_elems; e += 8)  // blocks are whole lanes
                    for (int l = 0; l < 8; ++l) lane[l] += block[e + l] * xb[e + l];
            }
        }
        const float a0 = lane[0] + lane[4], a1 = lane[1] + lane[5];
        const float a2 = lane[2] + lane[6], a3 = lane[3] + lane[7];
        y[t] = (a0 + a2) + (a1 + a3);
    }
};

inline MatVec matvec_body(const void* w, DType dtype, int64_t rows, int64_t cols, const float* x,
                          int n, float* y) {
    return MatVec{w, weight_layout(dtype, cols), rows, x, n, y};
}

}  // namespace kvw::kern
