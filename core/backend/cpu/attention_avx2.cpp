// AVX2/FMA attention kernel: attention_tiles.inc over __m256. Only these functions carry the
// target attribute, so the rest of the program stays portable; the engine calls them after
// checking the CPU at run time.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>

#include "core/backend/cpu/attention_kernels.h"
#include "core/math/softmax_exp.h"

#define KVW_SIMD __attribute__((target("avx2,fma")))

namespace kvw::cpu {

namespace {

struct Lanes {
    using V = __m256;

    // Lanes 0..n−1 set, for the masked loads and stores of a partial vector.
    KVW_SIMD static __m256i first(int n) {
        return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    }

    KVW_SIMD static V zero() { return _mm256_setzero_ps(); }
    KVW_SIMD static V set1(float f) { return _mm256_set1_ps(f); }
    KVW_SIMD static V loadu(const float* p) { return _mm256_loadu_ps(p); }
    KVW_SIMD static void storeu(float* p, V v) { _mm256_storeu_ps(p, v); }
    KVW_SIMD static V load_first(const float* p, int n) { return _mm256_maskload_ps(p, first(n)); }
    KVW_SIMD static void store_first(float* p, V v, int n) { _mm256_maskstore_ps(p, first(n), v); }
    KVW_SIMD static V add(V a, V b) { return _mm256_add_ps(a, b); }
    KVW_SIMD static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
    KVW_SIMD static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
    KVW_SIMD static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
    KVW_SIMD static V max(V a, V b) { return _mm256_max_ps(a, b); }
    KVW_SIMD static V floor(V v) { return _mm256_floor_ps(v); }
    KVW_SIMD static V pow2(V n) {
        const __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
        return _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
    }
    KVW_SIMD static V zero_below(V x, float bound, V v) {
        return _mm256_blendv_ps(v, zero(), _mm256_cmp_ps(x, set1(bound), _CMP_LT_OQ));
    }
};

}  // namespace

#include "core/backend/cpu/attention_tiles.inc"

void attention_avx2(const AttentionBlock& block) { attend_block(block); }

}  // namespace kvw::cpu

#endif  // __x86_64__
