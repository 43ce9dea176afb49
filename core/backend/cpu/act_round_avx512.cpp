// x rounded to int8 blocks as core/math/act_quant.h rounds it, sixteen floats to a vector
// (act_round.h). The scalar functions there call libm's fmaxf and rintf per element (the
// project builds for baseline x86-64, which has no rounding instruction): profiled, rounding
// 128 tokens took a sixth of the time of the block types' batched products it feeds.
//
// The same bits: max|x| ignores NaN elements as fmaxf does (they are zeroed first) and a
// maximum does not depend on the order it is taken in; d and 1/d are the scalar code's; q is
// x · (1/d) converted under MXCSR's rounding (to nearest even unless the caller changed it),
// as rintf converts, and narrowed to int8 by truncation, as the scalar int8_t conversion of an
// int32 does (NaN: 0x80000000, low byte 0). The sums per 16 are exact integer sums.
#if defined(__x86_64__)
#include <immintrin.h>

#include "core/backend/cpu/act_round.h"

#define KVW_SIMD __attribute__((target("avx512f,avx512bw,avx512vl,avx2")))

namespace kvw::cpu {

namespace {

// The maskz forms keep GCC 12 from warning about the _mm*_undefined inside the plain
// intrinsics (as fast_lanes512.inc).

// |x| of sixteen floats, NaN as 0
KVW_SIMD inline __m512 magnitude(__m512 x) {
    const __m512 a = _mm512_abs_ps(x);
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(a, a, _CMP_ORD_Q), a);
}

// The 256-bit halves of a vector
KVW_SIMD inline __m256i low_half(__m512i v) { return _mm512_maskz_extracti64x4_epi64(0xff, v, 0); }
KVW_SIMD inline __m256i high_half(__m512i v) { return _mm512_maskz_extracti64x4_epi64(0xff, v, 1); }

// The largest of sixteen non-negative floats (a maximum does not depend on the order)
KVW_SIMD inline float largest(__m512 v) {
    const __m512i bits = _mm512_castps_si512(v);
    __m256 m =
        _mm256_max_ps(_mm256_castsi256_ps(low_half(bits)), _mm256_castsi256_ps(high_half(bits)));
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_shuffle_ps(s, s, 1)));
}

// The sum of sixteen int32 (exact)
KVW_SIMD inline int total(__m512i v) {
    const __m256i h = _mm256_add_epi32(low_half(v), high_half(v));
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    s = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
    return _mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32(s, 1)));
}

// The low byte of each int32 (vpmovdb)
KVW_SIMD inline __m128i narrow(__m512i q) { return _mm512_maskz_cvtepi32_epi8(0xffff, q); }

// One block of 16 · V floats: its scale into d, its quants as int32 vectors into q.
template <int V>
KVW_SIMD inline void round_block(const float* x, float& d, __m512i* q) {
    __m512 x_v[V], amax = _mm512_setzero_ps();
    for (int v = 0; v < V; ++v) {
        x_v[v] = _mm512_loadu_ps(x + 16 * v);
        amax = _mm512_maskz_max_ps(0xffff, amax, magnitude(x_v[v]));
    }
    d = largest(amax) / 127.0f;
    const __m512 inverse = _mm512_set1_ps(d > 0.0f ? 1.0f / d : 0.0f);
    for (int v = 0; v < V; ++v)
        q[v] = _mm512_maskz_cvtps_epi32(0xffff, _mm512_mul_ps(x_v[v], inverse));
}

}  // namespace

KVW_SIMD void round_act_row_32_avx512(const float* x, int64_t blocks, ActBlock32* out) {
    for (int64_t b = 0; b < blocks; ++b) {
        __m512i q[2];
        round_block<2>(x + b * kAct32Elems, out[b].d, q);
        for (int v = 0; v < 2; ++v)
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out[b].q + 16 * v), narrow(q[v]));
    }
}

KVW_SIMD void round_act_row_256_avx512(const float* x, int64_t blocks, ActBlock256* out) {
    for (int64_t b = 0; b < blocks; ++b) {
        __m512i q[16];
        round_block<16>(x + b * kAct256Elems, out[b].d, q);
        for (int v = 0; v < 16; ++v) {
            const __m128i stored = narrow(q[v]);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out[b].q + 16 * v), stored);
            // Σ of the stored int8, sign-extended back
            out[b].sums[v] = int16_t(total(_mm512_maskz_cvtepi8_epi32(0xffff, stored)));
        }
    }
}

}  // namespace kvw::cpu

#endif  // __x86_64__
