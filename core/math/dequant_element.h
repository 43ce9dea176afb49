#pragma once
// One element of a ggml block at a time: the values dequant.h's block dequantisers write, by
// the same float arithmetic, for a kernel whose threads each read a few elements of a block (the
// CUDA mat-vec, kernels/bodies/matvec.h, gives thread l the elements e ≡ l mod 8). The block
// forms stay in dequant.h, written for the CPU's vectorised loops; test_forward_bodies checks
// every element of these against them.
#include <cstdint>

#include "core/math/dequant.h"
#include "core/math/hd.h"

namespace kvw {

KVW_HD float dequant_element_q8_0(const uint8_t* block, int e) {
    return float(int8_t(block[2 + e])) * load_fp16_le(block);
}

KVW_HD float dequant_element_q4_0(const uint8_t* block, int e) {
    const uint8_t q = block[2 + e % 16];
    return float(int(e < 16 ? q & 0x0f : q >> 4) - 8) * load_fp16_le(block);
}

// Q4_K and Q6_K keep per-sub-block factors that every element of a sub-block shares: the caller
// works them out once per block (q4_k_sub_scales / q6_k_sub_scales, as dequant.h does).
KVW_HD float dequant_element_q4_k(const uint8_t* block, const float* dl, const float* ml, int e) {
    const int j = e / 32;
    const uint8_t q = block[16 + 32 * (j / 2) + e % 32];
    return dl[j] * float((q >> (4 * (j % 2))) & 0x0f) - ml[j];
}

KVW_HD float dequant_element_q6_k(const uint8_t* block, const float* dsc, int e) {
    const int h = e / 128, g = e % 128 / 32, l = e % 32;
    const uint8_t* ql = block + 64 * h;
    const uint8_t* qh = block + 128 + 32 * h;
    const int low = g % 2 == 0 ? ql[l] : ql[l + 32];
    const int bits = (g < 2 ? low & 0x0f : low >> 4) | (((qh[l] >> (2 * g)) & 0x03) << 4);
    return dsc[8 * h + 2 * g + l / 16] * float(bits - 32);
}

}  // namespace kvw
