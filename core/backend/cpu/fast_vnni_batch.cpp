// Batches of the block types on AVX-512 VNNI (fast_kernels.h, fast_batch_vnni): sixteen tokens
// in the lanes of a 512-bit vector. The weights stay as they are stored; x, already rounded to
// int8 blocks, is laid out once per call so that one vector holds the same four elements of
// sixteen tokens (lane l of a chunk, elements 4l .. 4l + 3), next to the sixteen tokens' scales
// and the per-lane corrections each type needs. A weight's four bytes are broadcast to the
// sixteen tokens, so one vpdpbusd gives the exact int32 I_l of sixteen (row, token) pairs, one
// multiply gives sixteen d_w · d_x, and lane l's float accumulator of sixteen outputs is one
// vector: the float steps are fast_kernels.h's, one FMA per lane and block for sixteen
// outputs instead of one, and the eight lanes of each output add vertically in the promised
// order. So this gives the bits of the one-token and small-batch kernels (fast_tiles.inc).
//
// vpdpbusd multiplies unsigned by signed bytes. x is the signed side (|q| <= 127); the weight is
// made unsigned: Q8_0 as w + 128, Q4_0 and Q6_K as their stored q (w + 8, w + 32), Q4_K's q are
// unsigned already. The difference, -c · Σ (four x) with c = 128, 8 or 32, is exact and
// computed once per token and lane here; it starts the int32 sum. Q4_K and Q6_K multiply each
// chunk's four-product sums by their sub-block's scale with vpdpwssd (the sum in the low int16,
// |sum| < 2^15, times the scale; the high int16 times 0).
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "core/backend/cpu/fast_kernels.h"
#include "core/math/act_quant.h"
#include "core/math/dequant.h"

#define KVW_SIMD __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))
// the steps inside a tile's loops, which GCC -O2 would otherwise call
#define KVW_STEP KVW_SIMD inline __attribute__((always_inline))

namespace kvw::cpu {

namespace {

constexpr int kTokens = 16;  // tokens in a vector
constexpr int kLanes = 8;    // int32 lanes of a 32-element chunk (fast_kernels.h)

// A block's x for sixteen tokens, C chunks of 32 elements: q[c][l] the four int8 of lane l of
// chunk c for each token; corr[c][l] the int32 each of their sums starts from; d the tokens'
// scales; sums[j] (Q4_K) Σ x of sub-block j as float (exact: |Σ| <= 32 · 127).
template <int C>
struct XBlock {
    alignas(64) int8_t q[C][kLanes][4 * kTokens];
    int32_t corr[C][kLanes][kTokens];
    float d[kTokens];
    float sums[C == 8 ? 8 : 1][kTokens];
};

// The maskz forms keep GCC 12 from warning about the _mm512_undefined inside the plain
// intrinsics (as fast_lanes512.inc).
KVW_SIMD inline __m512i srl(__m512i v, unsigned n) { return _mm512_maskz_srli_epi32(0xffff, v, n); }
KVW_SIMD inline __m512i sll(__m512i v, unsigned n) { return _mm512_maskz_slli_epi32(0xffff, v, n); }
KVW_SIMD inline __m512 to_float(__m512i v) { return _mm512_maskz_cvtepi32_ps(0xffff, v); }

KVW_SIMD inline float half_at(const uint8_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return _cvtsh_ss(h);
}

KVW_SIMD inline __m512i dword_broadcast(const uint8_t* p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

// Each type: its activation block (Act, C chunks), the correction's c (kCorrShift: c = 2^k,
// or none), the block's bytes, and per (block, lane, row) `lane_sum` (the int32 I_l for the
// tokens of one vector) and the float steps around it.
struct Q8_0Batch {
    using Act = ActBlock32;
    static constexpr int C = 1, kBytes = kQ8_0BlockBytes, kCorrShift = 7;
    struct Row {
        const uint8_t* b;
    };
    KVW_SIMD static Row row(const uint8_t* b) { return {b}; }
    KVW_SIMD static float d(const Row& r) { return half_at(r.b); }
    KVW_STEP static __m512i weight(const Row& r, int /*c*/, int l) {
        return _mm512_xor_si512(dword_broadcast(r.b + 2 + 4 * l), _mm512_set1_epi8(int8_t(0x80)));
    }
};

struct Q4_0Batch {
    using Act = ActBlock32;
    static constexpr int C = 1, kBytes = kQ4_0BlockBytes, kCorrShift = 3;
    struct Row {
        const uint8_t* b;
    };
    KVW_SIMD static Row row(const uint8_t* b) { return {b}; }
    KVW_SIMD static float d(const Row& r) { return half_at(r.b); }
    // elements 4l .. 4l + 3: the low nibbles of bytes 4l .. for l < 4, the high ones of 4(l - 4)
    KVW_STEP static __m512i weight(const Row& r, int /*c*/, int l) {
        const __m512i bytes = dword_broadcast(r.b + 2 + 4 * (l % 4));
        return _mm512_and_si512(l < 4 ? bytes : srl(bytes, 4), _mm512_set1_epi8(0x0f));
    }
};

// Q4_K and Q6_K: a row's block decoded once per tile into scales (int32, high half 0, for
// vpdpwssd) and, for Q4_K, mins as float.
struct Q4_KBatch {
    using Act = ActBlock256;
    static constexpr int C = 8, kBytes = kQ4_KBlockBytes, kCorrShift = -1;
    struct Row {
        const uint8_t* b;
        int32_t scale[8];
        float min[8];
    };
    KVW_SIMD static Row row(const uint8_t* b) {
        Row r;
        r.b = b;
        uint32_t words[4];
        q4_k_scales_mins(b + 4, words);
        uint8_t bytes[16];
        std::memcpy(bytes, words, 16);
        for (int j = 0; j < 8; ++j) {
            r.scale[j] = bytes[j];
            r.min[j] = float(bytes[8 + j]);
        }
        return r;
    }
    KVW_SIMD static float d(const Row& r) { return half_at(r.b); }
    KVW_SIMD static float dmin(const Row& r) { return half_at(r.b + 2); }
    // chunk c: sub-block c, the low nibbles of 32 bytes for even c, the high ones for odd c
    KVW_STEP static __m512i weight(const Row& r, int c, int l) {
        const __m512i bytes = dword_broadcast(r.b + 16 + 32 * (c / 2) + 4 * l);
        return _mm512_and_si512(c % 2 == 0 ? bytes : srl(bytes, 4), _mm512_set1_epi8(0x0f));
    }
    KVW_SIMD static int scale_of(int c, int /*l*/) { return c; }
};

struct Q6_KBatch {
    using Act = ActBlock256;
    static constexpr int C = 8, kBytes = kQ6_KBlockBytes, kCorrShift = 5;
    struct Row {
        const uint8_t* b;
        int32_t scale[16];
    };
    KVW_SIMD static Row row(const uint8_t* b) {
        Row r;
        r.b = b;
        for (int j = 0; j < 16; ++j) r.scale[j] = int32_t(uint16_t(int16_t(int8_t(b[192 + j]))));
        return r;
    }
    KVW_SIMD static float d(const Row& r) { return half_at(r.b + 208); }
    // dequant.h's layout: chunk c = 4h + k of half h takes its low bits from nibble k / 2 of
    // ql[64h + 32(k % 2) ..] and its high bits from bit pair k of qh[32h ..]
    KVW_STEP static __m512i weight(const Row& r, int c, int l) {
        const int h = c / 4, k = c % 4;
        const __m512i ql = dword_broadcast(r.b + 64 * h + 32 * (k % 2) + 4 * l);
        const __m512i qh = dword_broadcast(r.b + 128 + 32 * h + 4 * l);
        const __m512i low = _mm512_and_si512(k < 2 ? ql : srl(ql, 4), _mm512_set1_epi8(0x0f));
        const __m512i high = k == 0 ? sll(qh, 4) : k == 1 ? sll(qh, 2) : k == 2 ? qh : srl(qh, 2);
        return _mm512_ternarylogic_epi32(low, high, _mm512_set1_epi8(0x30), 0xf8);  // a | b & c
    }
    // lane l of chunk c lies in sub-block 2c + (l >= 4)
    KVW_SIMD static int scale_of(int c, int l) { return 2 * c + (l >= 4 ? 1 : 0); }
};

// x[t0 .. t0 + 16) (tokens past n as zeros) laid out as XBlock for each of the `blocks` blocks.
template <class K>
KVW_SIMD void lay_out(const typename K::Act* x, int64_t blocks, int64_t t0, int n,
                      XBlock<K::C>* out) {
    using Act = typename K::Act;
    const __mmask16 valid = __mmask16((1u << std::min<int64_t>(kTokens, n - t0)) - 1u);
    const __m512i stride = _mm512_set1_epi32(int(blocks * int64_t(sizeof(Act))));
    const __m512i index = _mm512_mullo_epi32(
        _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), stride);
    const __m512i ones = _mm512_set1_epi8(1), zero = _mm512_setzero_si512();
    for (int64_t b = 0; b < blocks; ++b) {
        const auto* base = reinterpret_cast<const uint8_t*>(x + t0 * blocks + b);
        XBlock<K::C>& o = out[b];
        _mm512_store_ps(o.d, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), valid, index,
                                                      base + offsetof(Act, d), 1));
        for (int c = 0; c < K::C; ++c) {
            __m512i chunk_sum = zero;
            for (int l = 0; l < kLanes; ++l) {
                const __m512i q = _mm512_mask_i32gather_epi32(
                    zero, valid, index, base + offsetof(Act, q) + 32 * c + 4 * l, 1);
                _mm512_store_si512(o.q[c][l], q);
                const __m512i four = _mm512_dpbusd_epi32(zero, ones, q);  // Σ of four x
                if constexpr (K::kCorrShift >= 0)
                    _mm512_store_si512(o.corr[c][l],
                                       _mm512_sub_epi32(zero, sll(four, K::kCorrShift)));
                chunk_sum = _mm512_add_epi32(chunk_sum, four);
            }
            if constexpr (K::C == 8) _mm512_store_ps(o.sums[c], to_float(chunk_sum));
        }
    }
}

// The int32 I_l of R rows for sixteen tokens: Q8_0 / Q4_0 one vpdpbusd from the correction;
// Q4_K / Q6_K the sum over chunks of each chunk's four products times its scale.
template <class K>
KVW_STEP __m512i lane_sum(const typename K::Row& row, const XBlock<K::C>& x, int l) {
    if constexpr (K::C == 1) {
        return _mm512_dpbusd_epi32(_mm512_load_si512(x.corr[0][l]), K::weight(row, 0, l),
                                   _mm512_load_si512(x.q[0][l]));
    } else {
        __m512i sum = _mm512_setzero_si512();
#pragma GCC unroll 8
        for (int c = 0; c < K::C; ++c) {
            const __m512i start =
                K::kCorrShift >= 0 ? _mm512_load_si512(x.corr[c][l]) : _mm512_setzero_si512();
            const __m512i four =
                _mm512_dpbusd_epi32(start, K::weight(row, c, l), _mm512_load_si512(x.q[c][l]));
            sum = _mm512_dpwssd_epi32(sum, four, _mm512_set1_epi32(row.scale[K::scale_of(c, l)]));
        }
        return sum;
    }
}

// R weight rows × the sixteen tokens of `xs` (blocks of them): acc[r][l] the lanes of row r for
// the sixteen tokens, the promised steps per block; then added in the promised order into
// y[(t0 + t) · y_stride + row] for the valid tokens.
template <class K, int R>
KVW_SIMD void tile(const uint8_t* const* rows, const int64_t* row_of, const XBlock<K::C>* xs,
                   int64_t blocks, int64_t t0, int valid, float* y, int64_t y_stride) {
    __m512 acc[R][kLanes];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
        for (int l = 0; l < kLanes; ++l) acc[r][l] = _mm512_setzero_ps();
    for (int64_t b = 0; b < blocks; ++b) {
        const XBlock<K::C>& x = xs[b];
        const __m512 dx = _mm512_load_ps(x.d);
        typename K::Row row[R];
        __m512 scale[R];
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            row[r] = K::row(rows[r] + b * K::kBytes);
            scale[r] = _mm512_mul_ps(_mm512_set1_ps(K::d(row[r])), dx);
        }
#pragma GCC unroll 8
        for (int l = 0; l < kLanes; ++l)
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r)
                acc[r][l] =
                    _mm512_fmadd_ps(scale[r], to_float(lane_sum<K>(row[r], x, l)), acc[r][l]);
        if constexpr (requires { K::dmin(row[0]); }) {
            // Q4_K's mins: lane l is sub-block l, min_l · Σ x exact in float
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r) {
                const __m512 dmin = _mm512_mul_ps(_mm512_set1_ps(K::dmin(row[r])), dx);
#pragma GCC unroll 8
                for (int l = 0; l < kLanes; ++l)
                    acc[r][l] = _mm512_fnmadd_ps(
                        dmin,
                        _mm512_mul_ps(_mm512_set1_ps(row[r].min[l]), _mm512_load_ps(x.sums[l])),
                        acc[r][l]);
            }
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        const __m512* a = acc[r];
        const __m512 sum =
            _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a[0], a[4]), _mm512_add_ps(a[2], a[6])),
                          _mm512_add_ps(_mm512_add_ps(a[1], a[5]), _mm512_add_ps(a[3], a[7])));
        alignas(64) float out[kTokens];
        _mm512_store_ps(out, sum);
        for (int t = 0; t < valid; ++t) y[(t0 + t) * y_stride + row_of[r]] = out[t];
    }
}

// x laid out per call, a chunk of tokens whose layout fits kChunkBytes (in L2 while every row
// tile passes); rows in tiles of kRows, the rest one at a time.
constexpr int64_t kChunkBytes = 768 << 10;

template <class K, int kRows>
KVW_SIMD void batch(const WeightTensor& w, const void* xv, int n, float* y, int64_t row_begin,
                    int64_t row_end) {
    const auto* x = static_cast<const typename K::Act*>(xv);
    const int64_t blocks = w.cols / (32 * K::C);
    const int64_t groups = (n + kTokens - 1) / kTokens;
    const int64_t group_bytes = blocks * int64_t(sizeof(XBlock<K::C>));
    const int64_t per_chunk = std::max<int64_t>(1, kChunkBytes / group_bytes);
    thread_local std::vector<XBlock<K::C>> laid;
    laid.resize(size_t(std::min(groups, per_chunk) * blocks));
    for (int64_t g0 = 0; g0 < groups; g0 += per_chunk) {
        const int64_t g1 = std::min(groups, g0 + per_chunk);
        for (int64_t g = g0; g < g1; ++g)
            lay_out<K>(x, blocks, g * kTokens, n, laid.data() + (g - g0) * blocks);
        const auto run = [&]<int R>(const uint8_t* const* rows, const int64_t* row_of) {
            for (int64_t g = g0; g < g1; ++g) {
                const int valid = int(std::min<int64_t>(kTokens, n - g * kTokens));
                tile<K, R>(rows, row_of, laid.data() + (g - g0) * blocks, blocks, g * kTokens,
                           valid, y, w.rows);
            }
        };
        int64_t r = row_begin;
        for (; r + kRows <= row_end; r += kRows) {
            const uint8_t* rows[kRows];
            int64_t row_of[kRows];
            for (int i = 0; i < kRows; ++i) {
                row_of[i] = r + i;
                rows[i] = w.row_ptr(r + i);
            }
            run.template operator()<kRows>(rows, row_of);
        }
        for (; r < row_end; ++r) {
            const uint8_t* rows[1] = {w.row_ptr(r)};
            const int64_t row_of[1] = {r};
            run.template operator()<1>(rows, row_of);
        }
    }
}

}  // namespace

bool fast_batch_vnni(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                     int64_t row_end) {
    switch (w.dtype) {
        case DType::Q8_0: batch<Q8_0Batch, 3>(w, x, n, y, row_begin, row_end); return true;
        case DType::Q4_0: batch<Q4_0Batch, 3>(w, x, n, y, row_begin, row_end); return true;
        case DType::Q4_K: batch<Q4_KBatch, 2>(w, x, n, y, row_begin, row_end); return true;
        case DType::Q6_K: batch<Q6_KBatch, 2>(w, x, n, y, row_begin, row_end); return true;
        default: return false;
    }
}

}  // namespace kvw::cpu

#endif  // __x86_64__
