#pragma once
// Activations rounded as llama.cpp rounds x before a dot product (its `vec_dot_type`): to int8
// blocks for block-quantised weights, Q8_0-style blocks of 32 for Q8_0 / Q4_0 weights,
// Q8_K-style blocks of 256 with sums per 16 for Q4_K / Q6_K; to bf16 for BF16 weights. The fast
// CPU kernel set (core/backend/cpu/fast_kernels.h) multiplies these; the CUDA port can reuse
// the same rounding.
//
// Both scales are float32 (llama.cpp stores the Q8_0 one as f16; f32 costs two bytes a block
// and loses nothing). Rounding: d = max|x| / 127, q = rint(x / d) computed as rint(x · (1/d)),
// ties to even, so |q| <= 127 and never -128 (the SIMD kernels rely on it). An all-zero block
// has d = 0 and q = 0.
#include <cmath>
#include <cstdint>

#include "core/math/half.h"
#include "core/math/hd.h"

namespace kvw {

inline constexpr int kAct32Elems = 32, kAct256Elems = 256;

struct ActBlock32 {
    float d;
    int8_t q[kAct32Elems];
};

struct ActBlock256 {
    float d;
    int8_t q[kAct256Elems];
    int16_t sums[kAct256Elems / 16];  // Σ q over elements 16g .. 16g + 15 (for Q4_K's mins)
};

// The scale of `count` values and its inverse (0 for an all-zero block).
KVW_HD void act_block_scale(const float* x, int count, float& d, float& inverse) {
    float amax = 0.0f;
    for (int i = 0; i < count; ++i) amax = fmaxf(amax, fabsf(x[i]));
    d = amax / 127.0f;
    inverse = d > 0.0f ? 1.0f / d : 0.0f;
}

// `count` values of x as int8 q with their block's scale d (ties to even).
KVW_HD void round_act_block(const float* x, int count, float& d, int8_t* q) {
    float inverse = 0.0f;
    act_block_scale(x, count, d, inverse);
    for (int i = 0; i < count; ++i) q[i] = int8_t(rintf(x[i] * inverse));
}

// x[0 .. 32·blocks) into `blocks` Q8_0-style blocks.
KVW_HD void round_act_row_32(const float* x, int64_t blocks, ActBlock32* out) {
    for (int64_t b = 0; b < blocks; ++b)
        round_act_block(x + b * kAct32Elems, kAct32Elems, out[b].d, out[b].q);
}

// x[0 .. 256·blocks) into `blocks` Q8_K-style blocks with their sums per 16.
KVW_HD void round_act_row_256(const float* x, int64_t blocks, ActBlock256* out) {
    for (int64_t b = 0; b < blocks; ++b) {
        round_act_block(x + b * kAct256Elems, kAct256Elems, out[b].d, out[b].q);
        for (int g = 0; g < kAct256Elems / 16; ++g) {
            int sum = 0;
            for (int i = 0; i < 16; ++i) sum += out[b].q[16 * g + i];
            out[b].sums[g] = int16_t(sum);
        }
    }
}

// BF16 weights: x rounded to bf16 (round to nearest even, NaN kept quiet: float_to_bf16), in
// chunks of 32 elements in their order, as BF16 weights are stored: the pairs `vdpbf16ps`
// multiplies (fast_kernels.h) are its 32-bit lanes.
inline constexpr int kActBf16Chunk = 32;

struct ActChunkBf16 {
    uint16_t bf16[kActBf16Chunk];
};

// x[0 .. 32·chunks) into `chunks` chunks.
KVW_HD void round_act_row_bf16(const float* x, int64_t chunks, ActChunkBf16* out) {
    for (int64_t c = 0; c < chunks; ++c)
        for (int i = 0; i < kActBf16Chunk; ++i)
            out[c].bf16[i] = float_to_bf16(x[c * kActBf16Chunk + i]);
}

}  // namespace kvw
