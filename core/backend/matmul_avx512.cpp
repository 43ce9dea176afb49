// AVX-512 (F, BW, VL) matmul kernel: the tiles of matmul_tiles.inc over 16-float vectors.
// Only these functions carry the target attribute; CpuBackend picks them after checking the
// CPU at run time.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "core/backend/matmul_kernels.h"
#include "core/math/dequant.h"

#define KVW_SIMD __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma,f16c")))

namespace kvw::cpu {

namespace {

struct Simd {
    using V = __m512;
    static constexpr int kLanes = 16;
    static constexpr int kBatchRows = 8,
                         kBatchTokens = 3;  // 32 registers: 8 x 3 accumulators + 3 x + 1 weight (4
                                            // x 6 spilled: 3x slower; 6 x 4 no better)

    // block types: 4 rows stream at once for one token (8: 30 % slower, spills); the batched tile
    // (4 x 4) holds R·T accumulators, a sub-block's widened quants, a weight vector and its factors
    static constexpr int kBlockDecodeRows = 4, kBlockBatchRows = 4, kBlockBatchTokens = 4;

    KVW_SIMD static V zero() { return _mm512_setzero_ps(); }
    KVW_SIMD static V loadu(const float* p) { return _mm512_loadu_ps(p); }
    KVW_SIMD static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }

    // Lanes l and l + 8 first, then the eight-lane order of matmul_kernels.h. (Through memory:
    // GCC 12 warns about the _mm512_undefined inside the extract intrinsics.)
    KVW_SIMD static float hsum(V v) {
        alignas(64) float lanes[16];
        _mm512_store_ps(lanes, v);
        const __m256 h = _mm256_add_ps(_mm256_load_ps(lanes), _mm256_load_ps(lanes + 8));
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
        s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
        return _mm_cvtss_f32(s);
    }

    // (maskz forms below for the same reason as in hsum)
    KVW_SIMD static V set1(float f) { return _mm512_set1_ps(f); }
    KVW_SIMD static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
    KVW_SIMD static float half_to_float(const uint8_t* p) {
        uint16_t h;
        std::memcpy(&h, p, 2);
        return _cvtsh_ss(h);
    }
    KVW_SIMD static V widen_i8(__m128i bytes, int /*part: always 0, 16 bytes are one vector*/) {
        return _mm512_maskz_cvtepi32_ps(0xffff, _mm512_maskz_cvtepi8_epi32(0xffff, bytes));
    }

    // Sixteen weights of a row from column k, widened to float.
    template <DType D>
    KVW_SIMD static V load_weights(const uint8_t* row, int64_t k) {
        if constexpr (D == DType::F32) {
            return _mm512_loadu_ps(reinterpret_cast<const float*>(row) + k);
        } else {
            const __m256i h = _mm256_loadu_si256(
                reinterpret_cast<const __m256i*>(reinterpret_cast<const uint16_t*>(row) + k));
            if constexpr (D == DType::F16)
                return _mm512_maskz_cvtph_ps(0xffff, h);
            else  // bf16 is the upper half of a float (maskz forms: see hsum)
                return _mm512_castsi512_ps(
                    _mm512_maskz_slli_epi32(0xffff, _mm512_maskz_cvtepu16_epi32(0xffff, h), 16));
        }
    }
};

}  // namespace

#include "core/backend/matmul_tiles.inc"

void matmul_rows_avx512(const WeightTensor& w, const float* x, int n, float* y, int64_t row_begin,
                        int64_t row_end) {
    matmul_rows_any(w, x, n, y, row_begin, row_end);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
