// `cpu:fast`'s attention on AVX2 + FMA + F16C (fast_attention.h): fast_attention_lanes.inc over
// eight-float vectors, the sixteen lanes of the contract's sums in two of them, so it gives the
// AVX-512 kernel's bits. Only these functions carry the target attribute; the backend calls them
// after checking the CPU at run time.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/backend/cpu/fast_attention.h"
#include "core/math/softmax_exp.h"

#define KVW_SIMD __attribute__((target("avx2,fma,f16c")))

namespace kvw::cpu {

namespace {

#include "core/backend/cpu/attention_lanes8.inc"

struct Lanes : AttentionLanes8 {
    static constexpr int kWidth = 8;

    KVW_SIMD static V load(const float* p) { return _mm256_load_ps(p); }
    KVW_SIMD static void store(float* p, V v) { _mm256_store_ps(p, v); }
    // Whole vectors take the plain forms: a masked store is microcoded on AMD's cores (a
    // tenth of the softmax's speed there).
    KVW_SIMD static V load_first(const float* p, int n) {
        return n >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, first(n));
    }
    KVW_SIMD static V load_first_or(const float* p, int n, V v) {
        if (n >= 8) return _mm256_loadu_ps(p);
        const __m256i m = first(n);
        return _mm256_blendv_ps(v, _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m));
    }
    KVW_SIMD static void store_first(float* p, V v, int n) {
        if (n >= 8)
            _mm256_storeu_ps(p, v);
        else
            _mm256_maskstore_ps(p, first(n), v);
    }
    KVW_SIMD static V keep_first(V v, int n) {
        return n >= 8 ? v : _mm256_and_ps(v, _mm256_castsi256_ps(first(n)));
    }
    template <KvType T>
    KVW_SIMD static V load_row(const void* row, int at, int n) {
        if constexpr (T == KvType::F32) {
            return load_first(static_cast<const float*>(row) + at, n);
        } else {
            const uint16_t* p = static_cast<const uint16_t*>(row) + at;
            __m128i h;
            if (n >= 8) {
                h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
            } else {  // a partial vector: no masked 16-bit load before AVX-512
                alignas(16) uint16_t part[8] = {};
                if (n > 0) std::memcpy(part, p, size_t(n) * sizeof(uint16_t));
                h = _mm_load_si128(reinterpret_cast<const __m128i*>(part));
            }
            if constexpr (T == KvType::F16) return _mm256_cvtph_ps(h);
            return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
        }
    }

    // Eight rows of eight floats become eight columns, in place (r[c] holds column c): pairs of
    // rows interleaved, pairs of pairs gathered, then the 128-bit halves.
    KVW_SIMD __attribute__((always_inline)) static void transpose(V (&r)[8]) {
        V t[8], s[8];
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) {
            t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
            t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
        }
        // s[4k + m], half L: column 4L + m of rows 4k … 4k + 3.
#pragma GCC unroll 2
        for (int k = 0; k < 2; ++k) {
            s[4 * k] = _mm256_shuffle_ps(t[4 * k], t[4 * k + 2], 0x44);
            s[4 * k + 1] = _mm256_shuffle_ps(t[4 * k], t[4 * k + 2], 0xee);
            s[4 * k + 2] = _mm256_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0x44);
            s[4 * k + 3] = _mm256_shuffle_ps(t[4 * k + 1], t[4 * k + 3], 0xee);
        }
#pragma GCC unroll 4
        for (int m = 0; m < 4; ++m) {
            r[m] = _mm256_permute2f128_ps(s[m], s[4 + m], 0x20);
            r[m + 4] = _mm256_permute2f128_ps(s[m], s[4 + m], 0x31);
        }
    }
};

using V = Lanes::V;

#include "core/backend/cpu/softmax_exp_lanes.inc"
// after exp_nonpositive, which it calls
#include "core/backend/cpu/fast_attention_lanes.inc"

}  // namespace

void fast_attention_chunk_avx2(const FastAttentionChunk& chunk) { attend_chunk(chunk); }
void fast_attention_merge_avx2(int n_chunks, const float* m, const float* s, size_t stride,
                               const float* o, size_t o_stride, int hd, float* out,
                               float* weights) {
    merge_chunks(n_chunks, m, s, stride, o, o_stride, hd, out, weights);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
