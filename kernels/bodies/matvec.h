#pragma once
// y[t][r] = x[t] · w[r] for weights in their file layout, in two passes over a scratch of
// partial sums. The sum is the CPU matmul's (core/backend/cpu/matmul_kernels.h): eight float lanes,
// lane l summing the terms k ≡ l (mod 8) in increasing k, each product rounded before it is added
// (no FMA, as the scalar CPU kernel), then ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)). So it gives the
// scalar CPU kernel's bits.
//   MatVecLanes: one thread per (item, row, lane), lane l's sum. The eight threads of a row are
//     neighbours, so a warp reads four rows' bytes side by side rather than 32 rows far apart,
//     and a block type is read an element at a time (core/math/dequant_element.h) with no
//     per-thread copy of the block.
//   MatVecFold: one thread per (item, row) folds its eight lanes in that order.
// Meant for decode, where n is small.
#include <cstddef>
#include <cstdint>

#include "core/math/dequant_element.h"
#include "core/math/hd.h"
#include "kernels/bodies/weight_blocks.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

inline constexpr int kMatVecLanes = 8;

struct MatVecCall {
    const void* w = nullptr;  // [rows] rows of layout.row_bytes
    WeightLayout layout;
    int64_t rows = 0;
    const float* x = nullptr;  // [n][cols]
    int n = 0;
    float* y = nullptr;      // [n][rows]
    float* lanes = nullptr;  // scratch: [n][rows][kMatVecLanes]

    KVW_HD size_t outputs() const { return size_t(n) * size_t(rows); }
};

// Lane l's sum over block b of a block type: elements e ≡ l (mod 8), e increasing.
KVW_HD float block_lane_sum(DType dtype, const uint8_t* block, const float* xb, int block_elems,
                            int l, float acc) {
    switch (dtype) {
        case DType::Q8_0:
            for (int e = l; e < block_elems; e += kMatVecLanes)
                acc += dequant_element_q8_0(block, e) * xb[e];
            return acc;
        case DType::Q4_0:
            for (int e = l; e < block_elems; e += kMatVecLanes)
                acc += dequant_element_q4_0(block, e) * xb[e];
            return acc;
        case DType::Q4_K: {
            float dl[8], ml[8];
            q4_k_sub_scales(block + 4, load_fp16_le(block), load_fp16_le(block + 2), dl, ml);
            for (int e = l; e < block_elems; e += kMatVecLanes)
                acc += dequant_element_q4_k(block, dl, ml, e) * xb[e];
            return acc;
        }
        case DType::Q6_K: {
            float dsc[16];
            q6_k_sub_scales(block, load_fp16_le(block + 208), dsc);
            for (int e = l; e < block_elems; e += kMatVecLanes)
                acc += dequant_element_q6_k(block, dsc, e) * xb[e];
            return acc;
        }
        default: return acc;
    }
}

struct MatVecLanes {
    MatVecCall c;

    Launch shape() const { return cover(c.outputs() * kMatVecLanes); }

    KVW_HD void operator()(const At& at) const {
        const size_t t = at.x();
        if (t >= c.outputs() * kMatVecLanes) return;
        const int l = int(t % kMatVecLanes);
        const size_t out = t / kMatVecLanes;
        const int64_t r = int64_t(out % size_t(c.rows)), cols = c.layout.cols;
        const float* xt = c.x + out / size_t(c.rows) * size_t(cols);
        const uint8_t* row = c.layout.row(c.w, r);
        float acc = 0.0f;
        if (c.layout.plain()) {
            for (int64_t k = l; k < cols; k += kMatVecLanes)
                acc += plain_weight(c.layout.dtype, row, k) * xt[k];
        } else {
            for (int64_t b = 0; b < c.layout.blocks_per_row(); ++b)
                acc = block_lane_sum(c.layout.dtype, row + size_t(b) * size_t(c.layout.block_bytes),
                                     xt + b * c.layout.block_elems, c.layout.block_elems, l, acc);
        }
        c.lanes[t] = acc;
    }
};

struct MatVecFold {
    MatVecCall c;

    Launch shape() const { return cover(c.outputs()); }

    KVW_HD void operator()(const At& at) const {
        const size_t t = at.x();
        if (t >= c.outputs()) return;
        const float* lane = c.lanes + t * kMatVecLanes;
        const float a0 = lane[0] + lane[4], a1 = lane[1] + lane[5];
        const float a2 = lane[2] + lane[6], a3 = lane[3] + lane[7];
        c.y[t] = (a0 + a2) + (a1 + a3);
    }
};

inline size_t matvec_scratch_floats(int64_t rows, int n) {
    return size_t(n) * size_t(rows) * kMatVecLanes;
}

inline MatVecCall matvec_call(const void* w, DType dtype, int64_t rows, int64_t cols,
                              const float* x, int n, float* y, float* lanes) {
    return MatVecCall{w, weight_layout(dtype, cols), rows, x, n, y, lanes};
}

// The passes in order, each handed to run (a device launch, or host_launch in the tests).
template <class Run>
void matvec_passes(const MatVecCall& c, Run&& run) {
    if (c.outputs() == 0) return;
    run(MatVecLanes{c});
    run(MatVecFold{c});
}

}  // namespace kvw::kern
