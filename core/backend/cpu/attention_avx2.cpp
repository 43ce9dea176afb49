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

#include "core/backend/cpu/attention_lanes8.inc"

struct Lanes : AttentionLanes8 {
    KVW_SIMD static V loadu(const float* p) { return _mm256_loadu_ps(p); }
    KVW_SIMD static void storeu(float* p, V v) { _mm256_storeu_ps(p, v); }
    KVW_SIMD static V load_first(const float* p, int n) { return _mm256_maskload_ps(p, first(n)); }
    KVW_SIMD static void store_first(float* p, V v, int n) { _mm256_maskstore_ps(p, first(n), v); }
};

}  // namespace

#include "core/backend/cpu/attention_tiles.inc"

void attention_avx2(const AttentionBlock& block) { attend_block(block); }

}  // namespace kvw::cpu

#endif  // __x86_64__
