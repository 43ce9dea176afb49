#pragma once
// Block dequantisers for the ggml quantisation formats a Llama GGUF file uses. Each function
// reads one block (little-endian, as stored in the file) and writes its elements in order.
// The arithmetic is float32 in the same order as ggml's reference dequantisers, so results
// are bit-identical to them (and to the gguf Python package). `out` is restrict: it never
// overlaps the block, and saying so lets the compiler vectorise the loops (a uint8_t pointer may
// otherwise alias anything), which the matmul kernels depend on for speed.
#include <cstdint>
#include <cstring>

#include "core/math/half.h"
#include "core/math/hd.h"

namespace kvw {

inline constexpr int kQ8_0BlockElems = 32, kQ8_0BlockBytes = 34;
inline constexpr int kQ4_0BlockElems = 32, kQ4_0BlockBytes = 18;
inline constexpr int kQ4_KBlockElems = 256, kQ4_KBlockBytes = 144;
inline constexpr int kQ6_KBlockElems = 256, kQ6_KBlockBytes = 210;

KVW_HD float load_fp16_le(const uint8_t* p) { return fp16_to_float(uint16_t(p[0] | (p[1] << 8))); }

// Q8_0: f16 scale d, then 32 int8 quants; x = q * d.
KVW_HD void dequant_block_q8_0(const uint8_t* __restrict__ block, float* __restrict__ out) {
    const float d = load_fp16_le(block);
    for (int i = 0; i < 32; ++i) out[i] = float(int8_t(block[2 + i])) * d;
}

// Q4_0: f16 scale d, then 16 bytes whose low nibbles are elements 0..15 and high nibbles
// elements 16..31; x = (q - 8) * d.
KVW_HD void dequant_block_q4_0(const uint8_t* __restrict__ block, float* __restrict__ out) {
    const float d = load_fp16_le(block);
    const uint8_t* qs = block + 2;
    for (int i = 0; i < 16; ++i) {
        out[i] = float(int(qs[i] & 0x0f) - 8) * d;
        out[i + 16] = float(int(qs[i] >> 4) - 8) * d;
    }
}

// Q4_K: f16 d, f16 dmin, 12 bytes holding eight 6-bit scales and eight 6-bit mins, then 128
// bytes of nibbles. The 256 elements are 8 sub-blocks of 32; sub-blocks 2j and 2j+1 share the
// 32 bytes qs[32j..32j+31] (low nibbles, then high nibbles). x = d*scale*q - dmin*min.
//
// The 12 bytes hold scale j and min j in bytes j and j + 4 (low 6 bits) for j < 4; for j >= 4
// the low 4 bits are in the low and high nibble of byte j + 4 and the high 2 bits in the top of
// bytes j - 4 and j. Read as three little-endian words, each step below handles four
// sub-blocks at once (as llama.cpp does), and the conversions are fixed-length loops GCC
// vectorises. dl[j] = d * scale j, ml[j] = dmin * min j; d and dmin are the block's two f16
// values, widened by the caller (the SIMD kernels use F16C: the same bits).
//
// q4_k_scales_mins gives the eight 6-bit scales and the eight mins as integers, a byte each,
// little-endian in out[0..1] and out[2..3] (the fast kernels multiply them in integers,
// core/backend/cpu/fast_kernels.h, and take the words into a vector as they are).
KVW_HD void q4_k_scales_mins(const uint8_t* packed, uint32_t* __restrict__ out) {
    uint32_t w[3];
    std::memcpy(w, packed, sizeof w);
    constexpr uint32_t low6 = 0x3f3f3f3f, low4 = 0x0f0f0f0f, low2 = 0x03030303;
    out[0] = w[0] & low6;
    out[1] = (w[2] & low4) | (((w[0] >> 6) & low2) << 4);
    out[2] = w[1] & low6;
    out[3] = ((w[2] >> 4) & low4) | (((w[1] >> 6) & low2) << 4);
}

KVW_HD void q4_k_sub_scales(const uint8_t* packed, float d, float dmin, float* __restrict__ dl,
                            float* __restrict__ ml) {
    uint32_t words[4];
    q4_k_scales_mins(packed, words);
    uint8_t scale[8], min[8];
    std::memcpy(scale, words, 8);
    std::memcpy(min, words + 2, 8);
    for (int j = 0; j < 8; ++j) dl[j] = d * float(scale[j]);
    for (int j = 0; j < 8; ++j) ml[j] = dmin * float(min[j]);
}

KVW_HD void dequant_block_q4_k(const uint8_t* __restrict__ block, float* __restrict__ out) {
    float dl[8], ml[8];
    q4_k_sub_scales(block + 4, load_fp16_le(block), load_fp16_le(block + 2), dl, ml);
    const uint8_t* qs = block + 16;
    for (int j = 0; j < 8; ++j) {
        const uint8_t* q = qs + 32 * (j / 2);
        const int shift = 4 * (j % 2);
        for (int l = 0; l < 32; ++l)
            out[32 * j + l] = dl[j] * float((q[l] >> shift) & 0x0f) - ml[j];
    }
}

// Q6_K: 128 bytes ql (low 4 bits), 64 bytes qh (high 2 bits), 16 int8 scales (one per 16
// elements), f16 d. In each 128-element half h, element r takes its low bits from nibble
// r/64 of ql[64h + r%64] and its high bits from bit pair r/32 of qh[32h + r%32];
// x = d*scale*(q - 32); elements 16g .. 16g + 15 share scale g.
//
// The factor of sub-block g (of 16) is d * scale[g]; d is the block's f16, widened by the caller.
KVW_HD void q6_k_sub_scales(const uint8_t* block, float d, float* __restrict__ dsc) {
    const int8_t* scales = reinterpret_cast<const int8_t*>(block + 192);
    for (int g = 0; g < 16; ++g) dsc[g] = d * float(scales[g]);
}

KVW_HD void dequant_block_q6_k(const uint8_t* __restrict__ block, float* __restrict__ out) {
    float dsc[16];
    q6_k_sub_scales(block, load_fp16_le(block + 208), dsc);
    for (int h = 0; h < 2; ++h) {  // written per half, 32 lanes at a time, so it vectorises
        const uint8_t* ql = block + 64 * h;
        const uint8_t* qh = block + 128 + 32 * h;
        const float* sc = dsc + 8 * h;
        float* y = out + 128 * h;
        for (int s = 0; s < 2; ++s) {  // 16 elements share each scale
            const float d0 = sc[s], d1 = sc[s + 2], d2 = sc[s + 4], d3 = sc[s + 6];
            for (int l = 16 * s; l < 16 * s + 16; ++l) {
                const int q0 = int((ql[l] & 0x0f) | ((qh[l] & 0x03) << 4)) - 32;
                const int q1 = int((ql[l + 32] & 0x0f) | (((qh[l] >> 2) & 0x03) << 4)) - 32;
                const int q2 = int((ql[l] >> 4) | (((qh[l] >> 4) & 0x03) << 4)) - 32;
                const int q3 = int((ql[l + 32] >> 4) | (((qh[l] >> 6) & 0x03) << 4)) - 32;
                y[l] = d0 * float(q0);
                y[l + 32] = d1 * float(q1);
                y[l + 64] = d2 * float(q2);
                y[l + 96] = d3 * float(q3);
            }
        }
    }
}

}  // namespace kvw
