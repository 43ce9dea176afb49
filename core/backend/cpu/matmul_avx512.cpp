// AVX-512 (F, BW, VL) matmul kernel: the tiles of matmul_tiles.inc with two tokens side by side
// in each 16-float vector for batches, and eight-float vectors (32 registers of them) for one
// token. Each token keeps eight lanes of its own, so the sums are the AVX2 kernel's bit for bit
// (matmul_kernels.h). Only these functions carry the target attribute; CpuBackend picks them
// after checking the CPU at run time.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/backend/cpu/matmul_kernels.h"
#include "core/math/dequant.h"

#define KVW_SIMD __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma,f16c")))

namespace kvw::cpu {

namespace {

#include "core/backend/cpu/matmul_lanes8.inc"

// Two tokens in one vector: lanes 0..7 are the first token's eight lanes, 8..15 the second's.
// Weights are broadcast to both halves. (The maskz forms keep GCC 12 from warning about the
// _mm512_undefined inside the plain intrinsics.)
struct TwoTokens {
    using V = __m512;
    static constexpr int kTokens = 2;

    KVW_SIMD static V zero() { return _mm512_setzero_ps(); }
    KVW_SIMD static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }

    // Tokens [t0, t0 + count) (count even) interleaved per eight columns, token pair j's
    // columns 8q .. 8q + 7 at 16q of its row: one load gives a vector. The columns are
    // zero-padded to a multiple of eight, so a tail needs no other load.
    KVW_SIMD static XVectors arrange(const float* x, int64_t cols, int64_t t0, int64_t count) {
        const int64_t padded = (cols + 7) / 8 * 8;
        thread_local std::vector<float> pairs;
        pairs.assign(size_t(count / 2 * 2 * padded), 0.0f);
        for (int64_t j = 0; j < count / 2; ++j)
            for (int p = 0; p < 2; ++p) {
                const float* src = x + (t0 + 2 * j + p) * cols;
                float* dst = pairs.data() + j * 2 * padded + 8 * p;
                for (int64_t k = 0; k < cols; ++k) dst[k / 8 * 16 + k % 8] = src[k];
            }
        return {pairs.data(), 2 * padded};
    }
    KVW_SIMD static V load_x(const float* xg, int64_t k) { return _mm512_loadu_ps(xg + 2 * k); }
    KVW_SIMD static V load_x_tail(const float* xg, int64_t k, int /*count: padded*/) {
        return load_x(xg, k);
    }

    KVW_SIMD static V spread(__m256 w) {
        return _mm512_castpd_ps(_mm512_maskz_broadcast_f64x4(0xff, _mm256_castps_pd(w)));
    }
    // Eight weights of a row from column k, in both halves.
    template <DType D>
    KVW_SIMD static V load_weights(const uint8_t* row, int64_t k) {
        if constexpr (D == DType::F32) {
            return spread(_mm256_loadu_ps(reinterpret_cast<const float*>(row) + k));
        } else {
            const __m256i h = _mm256_broadcastsi128_si256(_mm_loadu_si128(
                reinterpret_cast<const __m128i*>(reinterpret_cast<const uint16_t*>(row) + k)));
            if constexpr (D == DType::F16)
                return _mm512_maskz_cvtph_ps(0xffff, h);
            else  // bf16 is the upper half of a float
                return _mm512_castsi512_ps(
                    _mm512_maskz_slli_epi32(0xffff, _mm512_maskz_cvtepu16_epi32(0xffff, h), 16));
        }
    }
    KVW_SIMD static float sum(V v, int token) {
        alignas(64) float lanes[16];
        _mm512_store_ps(lanes, v);
        return Lanes8::hsum(_mm256_load_ps(lanes + 8 * token));
    }
};

struct Simd {
    using Batch = TwoTokens;
    // 32 registers: 8 x 3 accumulators (8 rows, 6 tokens) + 3 x + 1 weight. One token: 4 rows
    // (`groups` apart, matmul_tiles.inc), F16 / BF16 decode 12 → 16 / 21 tok/s on Zen 4 against
    // 8 adjacent ones (kvw bench decode, alternated), 8 rows apart in between
    static constexpr int kDecodeRows = 4, kBatchRows = 8, kBatchVectors = 3;
    // block types: 4 rows stream at once for one token (Q8_0 / Q4_K decode 26.2 / 16.6 →
    // 28.8 / 18.6 tok/s on Zen 4 against 8); the batched tile (4 x 4) holds R·G accumulators,
    // a sub-block's widened quants, a weight vector and its factors
    static constexpr int kBlockDecodeRows = 4, kBlockBatchRows = 4, kBlockBatchVectors = 4;
};

}  // namespace

#include "core/backend/cpu/matmul_tiles.inc"

void matmul_rows_avx512(const WeightTensor& w, const float* x, int n, float* y, int64_t row_begin,
                        int64_t row_end) {
    matmul_rows_any(w, x, n, y, row_begin, row_end);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
