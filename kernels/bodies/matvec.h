#pragma once
// y[t][r] = x[t] · w[r] for weights in their file layout, in two passes over a scratch of
// partial sums, in the CPU matmul's lanes (core/backend/cpu/matmul_kernels.h): eight float
// lanes, lane l summing the terms k ≡ l (mod 8) in increasing k, each product rounded before it
// is added (no FMA), folded ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)). A row is cut into segments
// of kMatVecSegment columns (one K-quant super-block, eight Q8_0 / Q4_0 blocks) that are summed
// apart, so that a thread walks 32 terms, not a whole row: one thread per (item, row) lane
// walking 2,048 columns left most of the device idle in a decode step.
//   MatVecLanes: one thread per (item, row, segment, lane), lane l's sum over the segment. The
//     threads of a row are neighbours, so a warp reads four segments' bytes side by side, and a
//     block type is read an element at a time (core/math/dequant_element.h) with no per-thread
//     copy of the block.
//   MatVecFold: one thread per (item, row) adds each lane's segment sums in segment order, then
//     folds the lanes in that order.
// Rows of at most one segment give the scalar CPU kernel's bits; longer ones agree with it to
// rounding (the segment sums are added, not carried on). Meant for decode, where n is small.
#include <cstddef>
#include <cstdint>

#include "core/math/dequant_element.h"
#include "core/math/hd.h"
#include "kernels/bodies/weight_blocks.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

inline constexpr int kMatVecLanes = 8;
inline constexpr int64_t kMatVecSegment = 256;

// Segments of a row of `cols` columns, the last one shorter when cols is not a multiple.
KVW_HD size_t matvec_segments(int64_t cols) {
    return size_t((cols + kMatVecSegment - 1) / kMatVecSegment);
}

struct MatVecCall {
    const void* w = nullptr;  // [rows] rows of layout.row_bytes
    WeightLayout layout;
    int64_t rows = 0;
    const float* x = nullptr;  // [n][cols]
    int n = 0;
    float* y = nullptr;      // [n][rows]
    float* lanes = nullptr;  // scratch: [n][rows][segments()][kMatVecLanes]

    KVW_HD size_t outputs() const { return size_t(n) * size_t(rows); }
    KVW_HD size_t segments() const { return matvec_segments(layout.cols); }
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

    Launch shape() const { return cover(c.outputs() * c.segments() * kMatVecLanes); }

    KVW_HD void operator()(const At& at) const {
        const size_t t = at.x(), segments = c.segments();
        if (t >= c.outputs() * segments * kMatVecLanes) return;
        const int l = int(t % kMatVecLanes);
        const int64_t segment = int64_t(t / kMatVecLanes % segments);
        const size_t out = t / kMatVecLanes / segments;
        const int64_t r = int64_t(out % size_t(c.rows)), cols = c.layout.cols;
        const float* xt = c.x + out / size_t(c.rows) * size_t(cols);
        const uint8_t* row = c.layout.row(c.w, r);
        const int64_t first = segment * kMatVecSegment;
        const int64_t end = first + kMatVecSegment < cols ? first + kMatVecSegment : cols;
        float acc = 0.0f;
        if (c.layout.plain()) {
            for (int64_t k = first + l; k < end; k += kMatVecLanes)
                acc += plain_weight(c.layout.dtype, row, k) * xt[k];
        } else {
            for (int64_t b = first / c.layout.block_elems; b < end / c.layout.block_elems; ++b)
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
        const size_t t = at.x(), segments = c.segments();
        if (t >= c.outputs()) return;
        const float* sums = c.lanes + t * segments * kMatVecLanes;
        float lane[kMatVecLanes];
        for (int l = 0; l < kMatVecLanes; ++l) {
            lane[l] = sums[l];
            for (size_t s = 1; s < segments; ++s) lane[l] += sums[s * kMatVecLanes + size_t(l)];
        }
        const float a0 = lane[0] + lane[4], a1 = lane[1] + lane[5];
        const float a2 = lane[2] + lane[6], a3 = lane[3] + lane[7];
        c.y[t] = (a0 + a2) + (a1 + a3);
    }
};

inline size_t matvec_scratch_floats(int64_t rows, int64_t cols, int n) {
    return size_t(n) * size_t(rows) * matvec_segments(cols) * kMatVecLanes;
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
