// AVX2/FMA/F16C matmul kernels. Only these functions carry the target attribute, so the rest of
// the program stays portable; CpuBackend calls them after checking the CPU at run time.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "core/backend/matmul_kernels.h"

#define KVW_AVX2 __attribute__((target("avx2,fma,f16c")))

namespace kvw::cpu {

namespace {

// Eight weights of a row from column k, widened to float. F16 via F16C, BF16 by a 16-bit shift.
template <DType D>
KVW_AVX2 inline __m256 load_weights8(const uint8_t* row, int64_t k) {
    if constexpr (D == DType::F32) {
        return _mm256_loadu_ps(reinterpret_cast<const float*>(row) + k);
    } else {
        const __m128i h = _mm_loadu_si128(
            reinterpret_cast<const __m128i*>(reinterpret_cast<const uint16_t*>(row) + k));
        if constexpr (D == DType::F16) {
            return _mm256_cvtph_ps(h);
        } else {
            // bf16 is the upper half of a float: interleave zeros below each value.
            const __m128i zero = _mm_setzero_si128();
            return _mm256_castsi256_ps(
                _mm256_set_m128i(_mm_unpackhi_epi16(zero, h), _mm_unpacklo_epi16(zero, h)));
        }
    }
}

// The last `count` (< 8) weights of a row from column k, zero-padded to eight.
template <DType D>
KVW_AVX2 inline __m256 load_weights_tail(const uint8_t* row, int64_t k, int count) {
    constexpr size_t elem = dtype_size(D);
    alignas(32) uint8_t padded[8 * elem] = {};
    std::memcpy(padded, row + k * elem, size_t(count) * elem);
    return load_weights8<D>(padded, 0);
}

KVW_AVX2 inline __m256 load_x_tail(const float* x, int count) {
    alignas(32) float padded[8] = {};
    std::memcpy(padded, x, size_t(count) * sizeof(float));
    return _mm256_load_ps(padded);
}

// ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)), the order matmul_kernels.h promises.
KVW_AVX2 inline float horizontal_sum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}

// An R-row × T-token register tile: each weight vector loaded once is used for T tokens, each
// x vector for R rows. R·T accumulators + T x vectors + 1 weight vector fit the 16 ymm registers.
template <DType D, int R, int T>
KVW_AVX2 void tile(const WeightTensor& w, int64_t r0, const float* x, int64_t t0, float* y) {
    const int64_t cols = w.cols;
    const int64_t full = cols & ~int64_t(7);
    const uint8_t* rows[R];
    for (int r = 0; r < R; ++r) rows[r] = w.row_ptr(r0 + r);
    const float* xs[T];
    for (int t = 0; t < T; ++t) xs[t] = x + (t0 + t) * cols;

    __m256 acc[R][T];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int t = 0; t < T; ++t) acc[r][t] = _mm256_setzero_ps();

    for (int64_t k = 0; k < full; k += 8) {
        __m256 xv[T];
#pragma GCC unroll 4
        for (int t = 0; t < T; ++t) xv[t] = _mm256_loadu_ps(xs[t] + k);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m256 wv = load_weights8<D>(rows[r], k);
#pragma GCC unroll 4
            for (int t = 0; t < T; ++t) acc[r][t] = _mm256_fmadd_ps(wv, xv[t], acc[r][t]);
        }
    }
    if (full < cols) {
        const int count = int(cols - full);
        __m256 xv[T];
        for (int t = 0; t < T; ++t) xv[t] = load_x_tail(xs[t] + full, count);
        for (int r = 0; r < R; ++r) {
            const __m256 wv = load_weights_tail<D>(rows[r], full, count);
            for (int t = 0; t < T; ++t) acc[r][t] = _mm256_fmadd_ps(wv, xv[t], acc[r][t]);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int t = 0; t < T; ++t) y[(t0 + t) * w.rows + r0 + r] = horizontal_sum(acc[r][t]);
}

// Rows [r0, r0 + R) against tokens [t_begin, t_end), three tokens at a time.
template <DType D, int R>
KVW_AVX2 void rows_by_token_triples(const WeightTensor& w, int64_t r0, const float* x,
                                    int64_t t_begin, int64_t t_end, float* y) {
    int64_t t = t_begin;
    for (; t + 3 <= t_end; t += 3) tile<D, R, 3>(w, r0, x, t, y);
    if (t_end - t == 2)
        tile<D, R, 2>(w, r0, x, t, y);
    else if (t_end - t == 1)
        tile<D, R, 1>(w, r0, x, t, y);
}

// Tokens per pass over the weights in the batched case: 48 rows of x (384 KiB at 2048 columns)
// stay in L2 while a 4-row weight block, read once from memory, is reused for all of them.
constexpr int64_t kTokenChunk = 48;

template <DType D>
KVW_AVX2 void matmul_rows(const WeightTensor& w, const float* x, int n, float* y, int64_t row_begin,
                          int64_t row_end) {
    if (n == 1) {
        // Decode is bound by reading the weights: eight rows stream at once, which gives eight
        // independent FMA chains and keeps several memory streams in flight.
        int64_t r = row_begin;
        for (; r + 8 <= row_end; r += 8) tile<D, 8, 1>(w, r, x, 0, y);
        for (; r < row_end; ++r) tile<D, 1, 1>(w, r, x, 0, y);
        return;
    }
    for (int64_t t0 = 0; t0 < n; t0 += kTokenChunk) {
        const int64_t t1 = std::min<int64_t>(n, t0 + kTokenChunk);
        int64_t r = row_begin;
        for (; r + 4 <= row_end; r += 4) rows_by_token_triples<D, 4>(w, r, x, t0, t1, y);
        for (; r < row_end; ++r) rows_by_token_triples<D, 1>(w, r, x, t0, t1, y);
    }
}

}  // namespace

void matmul_rows_avx2(const WeightTensor& w, const float* x, int n, float* y, int64_t row_begin,
                      int64_t row_end) {
    switch (w.dtype) {
        case DType::F32: return matmul_rows<DType::F32>(w, x, n, y, row_begin, row_end);
        case DType::F16: return matmul_rows<DType::F16>(w, x, n, y, row_begin, row_end);
        case DType::BF16: return matmul_rows<DType::BF16>(w, x, n, y, row_begin, row_end);
    }
}

}  // namespace kvw::cpu

#endif  // __x86_64__
