#pragma once
// The block dequantiser of a quantised weight type, chosen at compile time so kernels can
// inline it (the maths itself is core/math/dequant.h).
#include "core/math/dequant.h"
#include "core/model/dtype.h"

namespace kvw {

template <DType D>
KVW_HD void dequant_weight_block(const uint8_t* block, float* out) {
    static_assert(dtype_is_quantized(D), "plain float types have no blocks");
    if constexpr (D == DType::Q8_0) dequant_block_q8_0(block, out);
    if constexpr (D == DType::Q4_0) dequant_block_q4_0(block, out);
    if constexpr (D == DType::Q4_K) dequant_block_q4_k(block, out);
    if constexpr (D == DType::Q6_K) dequant_block_q6_k(block, out);
}

// A row of `cols` elements (a whole number of blocks) of type D into float32.
template <DType D>
KVW_HD void dequant_weight_row(const uint8_t* row, int64_t cols, float* out) {
    constexpr DTypeBlock b = dtype_block(D);
    for (int64_t i = 0; i < cols / b.elems; ++i)
        dequant_weight_block<D>(row + i * b.bytes, out + i * b.elems);
}

}  // namespace kvw
