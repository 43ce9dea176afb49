// AVX2/FMA/F16C matmul kernel. Only these functions carry the target attribute, so the rest of
// the program stays portable; CpuBackend calls them after checking the CPU at run time.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "core/backend/matmul_kernels.h"
#include "core/math/dequant.h"

#define KVW_SIMD __attribute__((target("avx2,fma,f16c")))

namespace kvw::cpu {

namespace {

struct Simd {
    using V = __m256;
    static constexpr int kLanes = 8;
    static constexpr int kBatchRows = 4,
                         kBatchTokens = 3;  // 16 registers: 4 x 3 accumulators + 3 x + 1 weight

    // block types: 4 rows stream at once for one token; the batched tile (2 x 3) holds R·T
    // accumulators, a sub-block's widened quants, a weight vector and its factors
    static constexpr int kBlockDecodeRows = 4, kBlockBatchRows = 2, kBlockBatchTokens = 3;

    KVW_SIMD static V zero() { return _mm256_setzero_ps(); }
    KVW_SIMD static V loadu(const float* p) { return _mm256_loadu_ps(p); }
    KVW_SIMD static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }

    // ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)), the order matmul_kernels.h promises.
    KVW_SIMD static float hsum(V v) {
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
        return _mm_cvtss_f32(s);
    }

    KVW_SIMD static V set1(float f) { return _mm256_set1_ps(f); }
    KVW_SIMD static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
    KVW_SIMD static float half_to_float(const uint8_t* p) {
        uint16_t h;
        std::memcpy(&h, p, 2);
        return _cvtsh_ss(h);
    }
    KVW_SIMD static V widen_i8(__m128i bytes, int part) {
        return _mm256_cvtepi32_ps(
            _mm256_cvtepi8_epi32(part == 0 ? bytes : _mm_unpackhi_epi64(bytes, bytes)));
    }

    // Eight weights of a row from column k, widened to float. F16 via F16C, BF16 by a shift.
    template <DType D>
    KVW_SIMD static V load_weights(const uint8_t* row, int64_t k) {
        if constexpr (D == DType::F32) {
            return _mm256_loadu_ps(reinterpret_cast<const float*>(row) + k);
        } else {
            const __m128i h = _mm_loadu_si128(
                reinterpret_cast<const __m128i*>(reinterpret_cast<const uint16_t*>(row) + k));
            if constexpr (D == DType::F16)
                return _mm256_cvtph_ps(h);
            else  // bf16 is the upper half of a float
                return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
        }
    }
};

}  // namespace

#include "core/backend/matmul_tiles.inc"

void matmul_rows_avx2(const WeightTensor& w, const float* x, int n, float* y, int64_t row_begin,
                      int64_t row_end) {
    matmul_rows_any(w, x, n, y, row_begin, row_end);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
