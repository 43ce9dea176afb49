// widen_halves.h on AVX2 + F16C: eight values at a time, the tail by core/math/half.h. Only these
// functions carry the target attribute; the caller checks the CPU at run time.
#if defined(__x86_64__)
#include <immintrin.h>

#include "core/backend/cpu/widen_halves.h"
#include "core/math/half.h"

#define KVW_SIMD __attribute__((target("avx2,f16c")))

namespace kvw::cpu {

KVW_SIMD void widen_f16_avx2(const uint16_t* in, int64_t n, float* out) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(
            out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
    for (; i < n; ++i) out[i] = fp16_to_float(in[i]);
}

KVW_SIMD void widen_bf16_avx2(const uint16_t* in, int64_t n, float* out) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i h =
            _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
        _mm256_storeu_ps(out + i, _mm256_castsi256_ps(_mm256_slli_epi32(h, 16)));
    }
    for (; i < n; ++i) out[i] = bf16_to_float(in[i]);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
