// `cpu:fast`'s attention on AVX-512 (fast_attention.h): fast_attention_lanes.inc over
// sixteen-float vectors, masked loads and stores for partial vectors; and the avx512fp16 kernel,
// the same with its scores summed in half precision (fast_attention_half_scores.inc, whose
// functions alone carry AVX512-FP16). Only these functions carry the target attributes; the
// backend calls them after checking the CPU at run time.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/backend/cpu/fast_attention.h"
#include "core/math/softmax_exp.h"

#define KVW_SIMD __attribute__((target("avx512f,avx512bw,avx512vl,fma,f16c")))
#define KVW_SIMD_FP16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512fp16,fma,f16c")))

namespace kvw::cpu {

namespace {

// The maskz forms with every lane (kAll) keep GCC 12 from warning about the _mm512_undefined
// inside the plain intrinsics (as fast_lanes512.inc).
constexpr __mmask16 kAll = 0xffff;

struct Lanes {
    using V = __m512;
    static constexpr int kWidth = 16;

    KVW_SIMD static __mmask16 first(int n) {
        return n >= 16 ? __mmask16(0xffff) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1u);
    }
    KVW_SIMD static __m512d pd(V x) { return _mm512_castps_pd(x); }
    KVW_SIMD static V ps(__m512d x) { return _mm512_castpd_ps(x); }

    KVW_SIMD static V zero() { return _mm512_setzero_ps(); }
    KVW_SIMD static V set1(float f) { return _mm512_set1_ps(f); }
    KVW_SIMD static V load(const float* p) { return _mm512_load_ps(p); }
    KVW_SIMD static void store(float* p, V v) { _mm512_store_ps(p, v); }
    KVW_SIMD static V load_first(const float* p, int n) {
        return _mm512_maskz_loadu_ps(first(n), p);
    }
    KVW_SIMD static V load_first_or(const float* p, int n, V v) {
        return _mm512_mask_loadu_ps(v, first(n), p);
    }
    // Whole vectors take the plain store: a masked one cost Zen 4 a tenth of the weighted
    // values' time (their sixteen outputs per call).
    KVW_SIMD static void store_first(float* p, V v, int n) {
        if (n >= 16)
            _mm512_storeu_ps(p, v);
        else
            _mm512_mask_storeu_ps(p, first(n), v);
    }
    KVW_SIMD static V keep_first(V v, int n) { return _mm512_maskz_mov_ps(first(n), v); }
    // The largest lane (vmaxps's choice between +0 and −0 aside).
    KVW_SIMD static float max_of(V v) {
        const __m256 lo = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xf, pd(v), 0));
        const __m256 hi = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xf, pd(v), 1));
        const __m256 h = _mm256_max_ps(lo, hi);
        __m128 m = _mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
        m = _mm_max_ps(m, _mm_movehl_ps(m, m));
        return _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
    }
    template <KvType T>
    KVW_SIMD static V load_row(const void* row, int at, int n) {
        const __mmask16 m = first(n);
        if constexpr (T == KvType::F32) {
            return _mm512_maskz_loadu_ps(m, static_cast<const float*>(row) + at);
        } else {
            const __m256i h = _mm256_maskz_loadu_epi16(m, static_cast<const uint16_t*>(row) + at);
            if constexpr (T == KvType::F16) return _mm512_maskz_cvtph_ps(kAll, h);
            return _mm512_castsi512_ps(
                _mm512_maskz_slli_epi32(kAll, _mm512_maskz_cvtepu16_epi32(kAll, h), 16));
        }
    }
    KVW_SIMD static V add(V a, V b) { return _mm512_add_ps(a, b); }
    KVW_SIMD static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
    KVW_SIMD static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
    KVW_SIMD static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
    KVW_SIMD static V max(V a, V b) { return _mm512_maskz_max_ps(kAll, a, b); }
    KVW_SIMD static V floor(V v) {
        return _mm512_maskz_roundscale_ps(kAll, v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    }
    KVW_SIMD static V pow2(V n) {
        const __m512i e =
            _mm512_maskz_add_epi32(kAll, _mm512_maskz_cvtps_epi32(kAll, n), _mm512_set1_epi32(127));
        return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(kAll, e, 23));
    }
    KVW_SIMD static V zero_below(V x, float bound, V v) {
        return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, set1(bound), _CMP_NLT_UQ), v);
    }

    // Lanes 0 … 7 of a and b alternated into lo (a0 b0 a1 b1 …), lanes 8 … 15 into hi.
    KVW_SIMD static void interleave(V a, V b, V& lo, V& hi) {
        const __m512i first =
            _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        lo = _mm512_permutex2var_ps(a, first, b);
        hi = _mm512_permutex2var_ps(a, _mm512_add_epi32(first, _mm512_set1_epi32(8)), b);
    }
    // The two floats at p in every pair of lanes (one load: vbroadcastsd).
    KVW_SIMD static V broadcast_pair(const float* p) {
        double two;
        std::memcpy(&two, p, sizeof two);
        return _mm512_castpd_ps(_mm512_set1_pd(two));
    }

    // Sixteen rows of sixteen floats become sixteen columns, in place (r[c] holds column c):
    // pairs of rows interleaved, then pairs of pairs, then 128-bit quarters gathered twice.
    KVW_SIMD __attribute__((always_inline)) static void transpose(V (&r)[16]) {
        V t[16], u[16];
#pragma GCC unroll 8
        for (int i = 0; i < 8; ++i) {
            t[2 * i] = _mm512_maskz_unpacklo_ps(kAll, r[2 * i], r[2 * i + 1]);
            t[2 * i + 1] = _mm512_maskz_unpackhi_ps(kAll, r[2 * i], r[2 * i + 1]);
        }
        // u[4k + m], quarter L: column 4L + m of rows 4k … 4k + 3.
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            u[4 * k] = ps(_mm512_maskz_unpacklo_pd(0xff, pd(t[4 * k]), pd(t[4 * k + 2])));
            u[4 * k + 1] = ps(_mm512_maskz_unpackhi_pd(0xff, pd(t[4 * k]), pd(t[4 * k + 2])));
            u[4 * k + 2] = ps(_mm512_maskz_unpacklo_pd(0xff, pd(t[4 * k + 1]), pd(t[4 * k + 3])));
            u[4 * k + 3] = ps(_mm512_maskz_unpackhi_pd(0xff, pd(t[4 * k + 1]), pd(t[4 * k + 3])));
        }
#pragma GCC unroll 4
        for (int m = 0; m < 4; ++m) {
            // Columns m and m + 8 (quarters 0 and 2 of each u), m + 4 and m + 12 (quarters 1, 3).
            const V lo_a = _mm512_maskz_shuffle_f32x4(kAll, u[m], u[4 + m], 0x88);
            const V lo_b = _mm512_maskz_shuffle_f32x4(kAll, u[8 + m], u[12 + m], 0x88);
            const V hi_a = _mm512_maskz_shuffle_f32x4(kAll, u[m], u[4 + m], 0xdd);
            const V hi_b = _mm512_maskz_shuffle_f32x4(kAll, u[8 + m], u[12 + m], 0xdd);
            r[m] = _mm512_maskz_shuffle_f32x4(kAll, lo_a, lo_b, 0x88);
            r[m + 8] = _mm512_maskz_shuffle_f32x4(kAll, lo_a, lo_b, 0xdd);
            r[m + 4] = _mm512_maskz_shuffle_f32x4(kAll, hi_a, hi_b, 0x88);
            r[m + 12] = _mm512_maskz_shuffle_f32x4(kAll, hi_a, hi_b, 0xdd);
        }
    }
};

using V = Lanes::V;

#include "core/backend/cpu/attention_lanes8.inc"
// after AttentionLanes8, which it extends
#include "core/backend/cpu/fast_attention_lanes8.inc"

// the vector of the heads-in-lanes scores (fast_attention_lanes.inc): eight heads of a decode
using Lanes8 = FastLanes8;

#include "core/backend/cpu/softmax_exp_lanes.inc"
// after exp_nonpositive, which it calls
#include "core/backend/cpu/fast_attention_lanes.inc"
// after f32_scores, on which it falls back
#include "core/backend/cpu/fast_attention_half_scores.inc"

}  // namespace

void fast_attention_chunk_avx512(const FastAttentionChunk& chunk) {
    attend_chunk<f32_scores>(chunk);
}
void fast_attention_chunk_avx512fp16(const FastAttentionChunk& chunk) {
    attend_chunk<half_scores>(chunk);
}
void fast_attention_merge_avx512(int n_chunks, const float* m, const float* s, size_t stride,
                                 const float* o, size_t o_stride, int hd, float* out,
                                 float* weights) {
    merge_chunks(n_chunks, m, s, stride, o, o_stride, hd, out, weights);
}
void fast_attention_add_weighted_avx512(float* mass, const float* e, float w, int n) {
    add_weighted(mass, e, w, n);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
