#pragma once
// How a kernel body reads a weight matrix in its file layout (core/model/dtype.h): the plain
// types element by element, the ggml block types a block at a time through core/math/dequant.h,
// giving the values weight_row_to_float gives. The layout numbers are worked out on the host
// (dtype_block is host code) and travel in the body.
#include <cstddef>
#include <cstdint>

#include "core/math/dequant.h"
#include "core/math/half.h"
#include "core/math/hd.h"
#include "core/model/dtype.h"

namespace kvw::kern {

struct WeightLayout {
    DType dtype = DType::F32;
    int64_t cols = 0;
    int block_elems = 1;  // 1 for the plain types
    int block_bytes = 4;
    size_t row_bytes = 0;

    KVW_HD bool plain() const { return block_elems == 1; }
    KVW_HD int64_t blocks_per_row() const { return cols / block_elems; }
    KVW_HD const uint8_t* row(const void* w, int64_t r) const {
        return static_cast<const uint8_t*>(w) + size_t(r) * row_bytes;
    }
};

inline WeightLayout weight_layout(DType dtype, int64_t cols) {
    const DTypeBlock b = dtype_block(dtype);
    return WeightLayout{dtype, cols, int(b.elems), int(b.bytes), dtype_row_bytes(dtype, cols)};
}

// Element c of a row of a plain type (F32, F16, BF16).
KVW_HD float plain_weight(DType dtype, const uint8_t* row, int64_t c) {
    switch (dtype) {
        case DType::F32: return reinterpret_cast<const float*>(row)[c];
        case DType::F16: return fp16_to_float(reinterpret_cast<const uint16_t*>(row)[c]);
        case DType::BF16: return bf16_to_float(reinterpret_cast<const uint16_t*>(row)[c]);
        default: return 0.0f;
    }
}

// One block of a block type, widened into out[block_elems].
KVW_HD void dequant_weight_block(DType dtype, const uint8_t* block, float* out) {
    switch (dtype) {
        case DType::Q8_0: dequant_block_q8_0(block, out); return;
        case DType::Q4_0: dequant_block_q4_0(block, out); return;
        case DType::Q4_K: dequant_block_q4_k(block, out); return;
        case DType::Q6_K: dequant_block_q6_k(block, out); return;
        default: return;
    }
}

}  // namespace kvw::kern
