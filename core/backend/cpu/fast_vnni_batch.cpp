// Batches of the block types on AVX-512 VNNI (fast_kernels.h, fast_batch_vnni): sixteen tokens
// in the lanes of a 512-bit vector. The weights stay as they are stored; x, already rounded to
// int8 blocks, is laid out once per call so that one vector holds the same four elements of
// sixteen tokens (lane l of a chunk, elements 4l .. 4l + 3), next to the sixteen tokens' scales
// and the corrections each type needs. A weight's four bytes are broadcast to the sixteen
// tokens, so one vpdpbusd adds four products to the int32 I of sixteen (row, token) pairs (a
// block's lanes all into the same vector), one multiply gives sixteen d_w · d_x and one FMA the
// block's float step for sixteen outputs: fast_kernels.h's steps, so this gives the bits of
// the one-token and small-batch kernels (fast_tiles.inc).
//
// vpdpbusd multiplies unsigned by signed bytes. For Q8_0 and Q4_0 x is the signed side
// (|q| <= 127) and the weight is made unsigned: Q8_0 as w + 128, Q4_0 as its stored q (w + 8);
// the difference, -c · Σ x with c = 128 or 8, is exact, computed once per token and block
// here, and starts the int32 sum. Q4_K and Q6_K turn it round: x is laid out as x + 128
// (unsigned) and the weight as it is signed (Q4_K's q, Q6_K's q - 32), so the difference,
// -128 · Σ_c scale · Σ (four w), depends on the weights alone and is one int32 per block,
// worked out when the row is unpacked: the sum starts from it and the chunks load
// nothing but x (with a per-token correction loaded per chunk, Q6_K ran at 139 GFLOP/s, 161
// without it).
//
// Q4_K and Q6_K scale each sub-block's sum by its scale: the vpdpbusd of a sub-block's lanes
// (Q4_K's eight, in two chains of four; Q6_K's four) add into one int32 per token (|sum| <
// 2^17), which one vpmulld by the scale adds into I. (Before, each chunk's four-product sums
// were scaled on their own, two chunks' packed into the int16 halves of one vpdpwssd: one
// thread, 128 tokens, 512 × 2,048, Zen 4, thread CPU time, best of three: Q4_K 1,084 → 818 µs,
// Q6_K 1,001 → 933 µs; 16 tokens 165 → 133 and 181 → 134.) Q4_K's M = Σ_j min_j · S_j takes
// four vpdpwssd: the tokens' S_j and the mins packed in pairs. All of it is exact integer
// arithmetic: the same I and M.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/backend/cpu/amx_tile_config.h"
#include "core/backend/cpu/fast_kernels.h"
#include "core/math/act_quant.h"
#include "core/math/dequant.h"

#define KVW_SIMD __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))
// the amx path's tile products (below)
#define KVW_AMX_ISA "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c,amx-tile,amx-int8"
#define KVW_AMX __attribute__((target(KVW_AMX_ISA)))
// the steps inside a tile's loops, which GCC -O2 would otherwise call
#define KVW_STEP KVW_SIMD inline __attribute__((always_inline))

namespace kvw::cpu {

namespace {

constexpr int kTokens = 16;  // tokens in a vector
constexpr int kLanes = 8;    // int32 lanes of a 32-element chunk (fast_kernels.h)

// A block's x for sixteen tokens, K::C chunks of 32 elements: q[c][l] the four int8 of lane l
// of chunk c for each token; d the tokens' scales; where the type needs them, corr.v the int32
// each token's sum starts from and (Q4_K) sum_pairs.v[p], the sums S_2p and S_2p+1 of x over
// sub-blocks 2p and 2p + 1 in the low and the high int16, made here once for every row.
struct None {};
struct Corrections {
    int32_t v[kTokens];
};
struct SumPairs {
    int32_t v[4][kTokens];
};

template <class K>
struct XBlock {
    alignas(64) int8_t q[K::C][kLanes][4 * kTokens];
    float d[kTokens];
    [[no_unique_address]] std::conditional_t<(K::kCorrShift >= 0), Corrections, None> corr;
    [[no_unique_address]] std::conditional_t<K::kMins, SumPairs, None> sum_pairs;
};

// The maskz forms keep GCC 12 from warning about the _mm512_undefined inside the plain
// intrinsics (as fast_lanes512.inc).
KVW_SIMD inline __m512i sll(__m512i v, unsigned n) { return _mm512_maskz_slli_epi32(0xffff, v, n); }
KVW_SIMD inline __m512 to_float(__m512i v) { return _mm512_maskz_cvtepi32_ps(0xffff, v); }

KVW_SIMD inline float half_at(const uint8_t* p) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return _cvtsh_ss(h);
}

KVW_SIMD inline __m256i load32(const uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

KVW_SIMD inline void store32(uint8_t* p, __m256i v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

// corr + each lane's Σ of the four signed weight bytes of `first` times the lane's first scale
// in `scales` and those of `second` times its second (each lane's two scales as vpdpwssd takes
// them: the first in the low int16, the second above; each Σ within int16): the two sums
// packed as the tiles pack x's, one vpdpwssd.
KVW_SIMD inline __m256i add_scaled_fours(__m256i corr, __m256i first, __m256i second,
                                         __m256i scales) {
    const __m256i ones = _mm256_set1_epi8(1), zero = _mm256_setzero_si256();
    const __m256i pair =
        _mm256_blend_epi16(_mm256_dpbusd_epi32(zero, ones, first),
                           _mm256_slli_epi32(_mm256_dpbusd_epi32(zero, ones, second), 16), 0xaa);
    return _mm256_dpwssd_epi32(corr, pair, scales);
}

// The block's correction for x laid out + 128: -128 · Σ_c scale · Σ (four w), over the lanes
KVW_SIMD inline int32_t correction(__m256i scaled_sum) {
    __m128i s =
        _mm_add_epi32(_mm256_castsi256_si128(scaled_sum), _mm256_extracti128_si256(scaled_sum, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return -128 * _mm_cvtsi128_si32(s);
}

// Without a per-token correction (below) x is laid out + 128 and the weights' correction starts
// the sums.
template <class K>
constexpr bool x_biased = K::kCorrShift < 0;

// Each type: its activation block (Act, C chunks of 32), the per-token correction's c
// (kCorrShift: c = 2^k, or none: x_biased), its block's bytes, and W, a block unpacked once per
// row tile and chunk of tokens (then read by every vector of tokens): the weight bytes in
// element order (so lane l of chunk c is q[32c + 4l ..]), the scales as floats and, for Q4_K /
// Q6_K, the block's correction, the sub-blocks' scales as int32 (a sub-block is kSubBlockLanes
// lanes of a chunk) and Q4_K's dmin and its mins packed in pairs.
struct Q8_0Batch {
    using Act = ActBlock32;
    static constexpr int C = 1, kBytes = kQ8_0BlockBytes, kCorrShift = 7;
    static constexpr bool kMins = false;
    struct W {
        uint8_t q[32];  // w + 128
        float d;
    };
    KVW_STEP static void unpack(const uint8_t* b, W& w) {
        store32(w.q, _mm256_xor_si256(load32(b + 2), _mm256_set1_epi8(int8_t(0x80))));
        w.d = half_at(b);
    }
};

struct Q4_0Batch {
    using Act = ActBlock32;
    static constexpr int C = 1, kBytes = kQ4_0BlockBytes, kCorrShift = 3;
    static constexpr bool kMins = false;
    struct W {
        uint8_t q[32];  // w + 8
        float d;
    };
    // elements 0 .. 15 the low nibbles of the 16 bytes, 16 .. 31 the high ones
    KVW_STEP static void unpack(const uint8_t* b, W& w) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2));
        store32(w.q, _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(bytes, 4), bytes),
                                      _mm256_set1_epi8(0x0f)));
        w.d = half_at(b);
    }
};

struct Q4_KBatch {
    using Act = ActBlock256;
    static constexpr int C = 8, kBytes = kQ4_KBlockBytes, kCorrShift = -1;
    static constexpr bool kMins = true;
    static constexpr int kSubBlockLanes = 8;
    struct W {
        uint8_t q[256];
        float d, dmin;
        int32_t corr;
        int32_t scale[8];
        int32_t min_pair[4];  // min 2p in the low int16, min 2p + 1 in the high one
    };
    // Chunk c is sub-block c; sub-blocks 2p and 2p + 1 are the low and the high nibbles of 32
    // bytes.
    KVW_STEP static void unpack(const uint8_t* b, W& w) {
        w.d = half_at(b);
        uint32_t words[4];
        q4_k_scales_mins(b + 4, words);
        const __m128i scales_mins =
            _mm_set_epi32(int(words[3]), int(words[2]), int(words[1]), int(words[0]));
        w.dmin = half_at(b + 2);
        // the eight mins (bytes 8 .. 15) widened to int16 are the four pairs
        _mm_storeu_si128(reinterpret_cast<__m128i*>(w.min_pair),
                         _mm_cvtepu8_epi16(_mm_srli_si128(scales_mins, 8)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(w.scale), _mm256_cvtepu8_epi32(scales_mins));
        // the correction's scales: those of sub-blocks 2p and 2p + 1 in the low and the high
        // int16 (add_scaled_fours)
        alignas(16) int32_t pair_scale[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(pair_scale), _mm_cvtepu8_epi16(scales_mins));
        const __m256i low4 = _mm256_set1_epi8(0x0f);
        __m256i corr = _mm256_setzero_si256();
        for (int p = 0; p < 4; ++p) {
            const __m256i q = load32(b + 16 + 32 * p);
            const __m256i low = _mm256_and_si256(q, low4);
            const __m256i high = _mm256_and_si256(_mm256_srli_epi16(q, 4), low4);
            store32(w.q + 64 * p, low);
            store32(w.q + 64 * p + 32, high);
            corr = add_scaled_fours(corr, low, high, _mm256_set1_epi32(pair_scale[p]));
        }
        w.corr = correction(corr);
    }
};

struct Q6_KBatch {
    using Act = ActBlock256;
    static constexpr int C = 8, kBytes = kQ6_KBlockBytes, kCorrShift = -1;
    static constexpr bool kMins = false;
    static constexpr int kSubBlockLanes = 4;
    struct W {
        int8_t q[256];  // w = q - 32
        float d;
        int32_t corr;  // -128 · Σ_c Σ_l scale of (c, l) · Σ four w of lane l of chunk c
        int32_t scale[16];
    };
    // Chunks 2p and 2p + 1 (unsigned q) as signed w into q, their lanes' scale · Σ four w
    // added to corr (`pairs` as unpack makes them).
    KVW_STEP static void chunk_pair(int8_t* q, int p, __m256i& corr, __m256i pairs, __m256i first_q,
                                    __m256i second_q) {
        const __m256i m32 = _mm256_set1_epi8(32);
        const __m256i first = _mm256_sub_epi8(first_q, m32),
                      second = _mm256_sub_epi8(second_q, m32);
        store32(reinterpret_cast<uint8_t*>(q), first);
        store32(reinterpret_cast<uint8_t*>(q + 32), second);
        // lanes 0..3 take the int32 2p of `pairs`, 4..7 its 2p + 1
        const __m256i scales = _mm256_permutevar8x32_epi32(
            pairs, _mm256_setr_epi32(2 * p, 2 * p, 2 * p, 2 * p, 2 * p + 1, 2 * p + 1, 2 * p + 1,
                                     2 * p + 1));
        corr = add_scaled_fours(corr, first, second, scales);
    }
    // dequant.h's layout: in each half h, chunk 4h + k takes its low bits from nibble k / 2 of
    // ql[64h + 32(k % 2) ..] and its high bits from bit pair k of qh[32h ..]. Lane half h of
    // chunk c lies in sub-block 2c + h, so the correction's `pairs` packs scales 4p + h and
    // 4p + 2 + h into its int32 2p + h: the sixteen scales widened to int16 and their words
    // reordered 0 2 1 3 in each four.
    KVW_STEP static void unpack(const uint8_t* b, W& w) {
        w.d = half_at(b + 208);
        const __m128i scales = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 192));
        _mm512_storeu_si512(w.scale, _mm512_cvtepi8_epi32(scales));
        const __m256i pairs =
            _mm256_shuffle_epi8(_mm256_cvtepi8_epi16(scales),
                                _mm256_broadcastsi128_si256(_mm_setr_epi8(
                                    0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15)));
        const __m256i low4 = _mm256_set1_epi8(0x0f), bits45 = _mm256_set1_epi8(0x30);
        __m256i corr = _mm256_setzero_si256();
        for (int h = 0; h < 2; ++h) {
            const __m256i ql0 = load32(b + 64 * h), ql1 = load32(b + 64 * h + 32);
            const __m256i qh = load32(b + 128 + 32 * h);
            int8_t* q = w.q + 128 * h;
            chunk_pair(q, 2 * h, corr, pairs,
                       _mm256_or_si256(_mm256_and_si256(ql0, low4),
                                       _mm256_and_si256(_mm256_slli_epi16(qh, 4), bits45)),
                       _mm256_or_si256(_mm256_and_si256(ql1, low4),
                                       _mm256_and_si256(_mm256_slli_epi16(qh, 2), bits45)));
            chunk_pair(q + 64, 2 * h + 1, corr, pairs,
                       _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), low4),
                                       _mm256_and_si256(qh, bits45)),
                       _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), low4),
                                       _mm256_and_si256(_mm256_srli_epi16(qh, 2), bits45)));
        }
        w.corr = correction(corr);
    }
};

// x[t0 .. t0 + 16) (tokens past n as zeros) laid out as XBlock for each of the `blocks` blocks.
template <class K>
KVW_SIMD void lay_out(const typename K::Act* x, int64_t blocks, int64_t t0, int n, XBlock<K>* out) {
    using Act = typename K::Act;
    const __mmask16 valid = __mmask16((1u << std::min<int64_t>(kTokens, n - t0)) - 1u);
    const int64_t x_stride = fast_token_stride(blocks, sizeof(Act));
    const __m512i stride = _mm512_set1_epi32(int(x_stride * int64_t(sizeof(Act))));
    const __m512i index = _mm512_mullo_epi32(
        _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), stride);
    const __m512i ones = _mm512_set1_epi8(1), zero = _mm512_setzero_si512();
    for (int64_t b = 0; b < blocks; ++b) {
        const auto* base = reinterpret_cast<const uint8_t*>(x + t0 * x_stride + b);
        XBlock<K>& o = out[b];
        _mm512_store_ps(o.d, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), valid, index,
                                                      base + offsetof(Act, d), 1));
        __m512i block_sum = zero, even_sum = zero;
        for (int c = 0; c < K::C; ++c) {
            __m512i chunk_sum = zero;
            for (int l = 0; l < kLanes; ++l) {
                const __m512i q = _mm512_mask_i32gather_epi32(
                    zero, valid, index, base + offsetof(Act, q) + 32 * c + 4 * l, 1);
                _mm512_store_si512(o.q[c][l],
                                   x_biased<K> ? _mm512_xor_si512(q, _mm512_set1_epi8(-128)) : q);
                chunk_sum = _mm512_dpbusd_epi32(chunk_sum, ones, q);  // + Σ of four x
            }
            if constexpr (K::kCorrShift >= 0) block_sum = _mm512_add_epi32(block_sum, chunk_sum);
            // |S_j| <= 32 · 128: its low int16 is S_j
            if constexpr (K::kMins) {
                if (c % 2 == 0)
                    even_sum = _mm512_and_si512(chunk_sum, _mm512_set1_epi32(0xffff));
                else
                    _mm512_store_si512(o.sum_pairs.v[c / 2],
                                       _mm512_or_si512(even_sum, sll(chunk_sum, 16)));
            }
        }
        if constexpr (K::kCorrShift >= 0)
            _mm512_store_si512(o.corr.v, _mm512_sub_epi32(zero, sll(block_sum, K::kCorrShift)));
    }
}

// sum + a sub-block's sums · its scale (exact: |sub_block| < 2^17, |scale| <= 128)
KVW_STEP __m512i add_scaled(__m512i sum, __m512i sub_block, int32_t scale) {
    return _mm512_add_epi32(sum, _mm512_mullo_epi32(sub_block, _mm512_set1_epi32(scale)));
}

// The weight's four bytes of lane l of chunk c, broadcast to the sixteen tokens
template <class W>
KVW_STEP __m512i weight_four(const W& w, int c, int l) {
    int32_t four_bytes;
    std::memcpy(&four_bytes, w.q + 32 * c + 4 * l, 4);
    return _mm512_set1_epi32(four_bytes);
}

// The int32 I of block b of R rows for sixteen tokens x, lane after lane of the block into
// the same vector: Q8_0 / Q4_0 one vpdpbusd a lane from the tokens' correction; Q4_K / Q6_K,
// from the rows' corrections, each sub-block's lanes summed apart and scaled (above). The rows'
// chains run side by side, each chunk's x loaded once for them: Q6_K
// 120–133 → 131–144 GFLOP/s (one thread, 128 tokens, Zen 4) against a row's lane at a time,
// the others unchanged.
template <class K, int R>
KVW_STEP void block_sums(const typename K::W* const* rows, int64_t b, const XBlock<K>& x,
                         __m512i (&sum)[R]) {
    if constexpr (K::C == 1) {
        const __m512i start = _mm512_load_si512(x.corr.v);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) sum[r] = start;
#pragma GCC unroll 8
        for (int l = 0; l < kLanes; ++l) {
            const __m512i xq = _mm512_load_si512(x.q[0][l]);
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r)
                sum[r] = _mm512_dpbusd_epi32(sum[r], weight_four(rows[r][b], 0, l), xq);
        }
    } else {
        // two chains of four lanes per row: a chunk's halves, Q6_K's two sub-blocks or Q4_K's one
        const __m512i zero = _mm512_setzero_si512();
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) sum[r] = _mm512_set1_epi32(rows[r][b].corr);
        for (int c = 0; c < K::C; ++c) {
            __m512i half[2][R];
#pragma GCC unroll 2
            for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 8
                for (int r = 0; r < R; ++r) half[h][r] = zero;
#pragma GCC unroll 4
                for (int l = 4 * h; l < 4 * h + 4; ++l) {
                    const __m512i xq = _mm512_load_si512(x.q[c][l]);  // x is the unsigned operand
#pragma GCC unroll 8
                    for (int r = 0; r < R; ++r)
                        half[h][r] =
                            _mm512_dpbusd_epi32(half[h][r], xq, weight_four(rows[r][b], c, l));
                }
            }
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r) {
                const int32_t* scale = rows[r][b].scale;
                if constexpr (K::kSubBlockLanes == 8) {
                    sum[r] = add_scaled(sum[r], _mm512_add_epi32(half[0][r], half[1][r]), scale[c]);
                } else {
                    sum[r] = add_scaled(sum[r], half[0][r], scale[2 * c]);
                    sum[r] = add_scaled(sum[r], half[1][r], scale[2 * c + 1]);
                }
            }
        }
    }
}

// A row's outputs for sixteen tokens after block b, whose int32 I is `sum`: the promised float
// steps, acc = fma(d_w · d_x, float(I), acc), for Q4_K then acc = fnmadd(dmin · d_x, float(M),
// acc).
template <class K, class W>
KVW_STEP void block_step(__m512& acc, const W& w, const XBlock<K>& x, __m512 dx, __m512i sum) {
    acc = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_set1_ps(w.d), dx), to_float(sum), acc);
    if constexpr (K::kMins) {
        __m512i m = _mm512_setzero_si512();
#pragma GCC unroll 4
        for (int p = 0; p < 4; ++p)
            m = _mm512_dpwssd_epi32(m, _mm512_load_si512(x.sum_pairs.v[p]),
                                    _mm512_set1_epi32(w.min_pair[p]));
        acc = _mm512_fnmadd_ps(_mm512_mul_ps(_mm512_set1_ps(w.dmin), dx), to_float(m), acc);
    }
}

// acc[r], row row_of[r]'s outputs for tokens t0 …, into y[t · y_stride + row] for the `valid`
// tokens.
template <int R>
KVW_STEP void store_outputs(const __m512 (&acc)[R], const int64_t* row_of, int64_t t0, int valid,
                            float* y, int64_t y_stride) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        alignas(64) float out[kTokens];
        _mm512_store_ps(out, acc[r]);
        for (int t = 0; t < std::min(kTokens, valid); ++t)
            y[(t0 + t) * y_stride + row_of[r]] = out[t];
    }
}

// R unpacked weight rows (blocks of them) × the sixteen tokens of xs (tokens t0 ..): acc[r] row
// r's outputs for the sixteen tokens, the promised float steps per block; then stored into
// y[t · y_stride + row] for the `valid` tokens.
template <class K, int R>
KVW_SIMD void tile(const typename K::W* const* rows, const int64_t* row_of, const XBlock<K>* xs,
                   int64_t blocks, int64_t t0, int valid, float* y, int64_t y_stride) {
    __m512 acc[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_ps();
    for (int64_t b = 0; b < blocks; ++b) {
        const XBlock<K>& x = xs[b];
        const __m512 dx = _mm512_load_ps(x.d);
        __m512i sum[R];
        block_sums<K, R>(rows, b, x, sum);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) block_step(acc[r], rows[r][b], x, dx, sum[r]);
    }
    store_outputs<R>(acc, row_of, t0, valid, y, y_stride);
}

// The amx path (fast_kernels.h): Intel's AMX tiles give the same I for sixteen unpacked rows ×
// sixteen tokens, from the rows' bytes (tile A, sixteen rows a row of blocks apart) and the
// tokens' x as lay_out makes it, whose lanes of four elements by sixteen tokens are the rows of
// tile B. Q8_0 / Q4_0: one tdpbusd a block (unsigned weights, signed x), its sums then stepped
// as the vnni batches step them. Q4_K / Q6_K: the tiles cannot scale a sub-block, so the rows
// are unpacked with each element times its sub-block's scale, w' = scale · w (|w'| <= 4,096),
// split into bytes w' = 256 · hi + lo: I = corr + 256 · Σ hi · x + Σ lo · x over the block, two
// sums of four tdpbuud / tdpbsud (K = 64) each (x + 128 unsigned), exact. Every type's sums
// are then stored and read by the vector steps a block behind the tiles: a vector load of what
// a tile store has just written waits for the store.
constexpr int kAmxRows = 16;

// A Q4_K / Q6_K block for the tiles: w' = scale · w's low bytes and high bytes in element
// order, and the scales, correction and mins as the vnni batches' W has them.
struct AmxBlock256 {
    uint8_t lo[256];
    int8_t hi[256];
    float d, dmin;
    int32_t corr;
    int32_t min_pair[4];
};

template <class K>
using AmxW = std::conditional_t<K::C == 1, typename K::W, AmxBlock256>;

// A Q4_K / Q6_K block unpacked as the vnni batches unpack it, then its w' split (Q8_0 / Q4_0
// take their W as it is: unpack_row).
template <class K>
KVW_STEP void amx_unpack(const uint8_t* b, AmxBlock256& out) {
    typename K::W w;
    K::unpack(b, w);
    out.d = w.d;
    out.corr = w.corr;
    if constexpr (K::kMins) {
        out.dmin = w.dmin;
        std::memcpy(out.min_pair, w.min_pair, sizeof out.min_pair);
    }
    constexpr bool kSigned = std::is_signed_v<std::remove_extent_t<decltype(w.q)>>;
    constexpr __mmask32 kAll32 = 0xffffffffu;
    for (int c = 0; c < K::C; ++c) {
        const __m256i bytes = load32(reinterpret_cast<const uint8_t*>(w.q) + 32 * c);
        const __m512i q = kSigned ? _mm512_maskz_cvtepi8_epi16(kAll32, bytes)
                                  : _mm512_maskz_cvtepu8_epi16(kAll32, bytes);
        // Q4_K: one scale a chunk; Q6_K: one a half
        const __m512i scales =
            K::kSubBlockLanes == 8
                ? _mm512_set1_epi16(int16_t(w.scale[c]))
                : _mm512_mask_blend_epi16(0xffff0000u, _mm512_set1_epi16(int16_t(w.scale[2 * c])),
                                          _mm512_set1_epi16(int16_t(w.scale[2 * c + 1])));
        const __m512i v = _mm512_mullo_epi16(q, scales);
        store32(out.lo + 32 * c, _mm512_maskz_cvtepi16_epi8(kAll32, v));
        store32(reinterpret_cast<uint8_t*>(out.hi) + 32 * c,
                _mm512_maskz_cvtepi16_epi8(kAll32, _mm512_maskz_srai_epi16(kAll32, v, 8)));
    }
}

// Sums of a block per row and token: one (Q8_0 / Q4_0) or two, lo's and hi's (Q4_K / Q6_K)
template <class K>
constexpr int kAmxSums = K::C == 1 ? 1 : 2;

// Q8_0 / Q4_0: tile 0 the sums (16 rows × 16 int32), 1 the weights (16 rows × 32 bytes), 2 x (8
// rows of 16 tokens' four bytes). Q4_K / Q6_K: tiles 0 and 1 the sums of lo and hi, 2 and 3 lo
// and hi (16 rows × 64 bytes), 4 x (16 rows of 16 tokens' four bytes).
template <class K>
KVW_AMX void amx_configure() {
    AmxTileConfig c;
    constexpr int kTiles = K::C == 1 ? 3 : 5;
    for (int t = 0; t < kTiles; ++t) {
        c.rows[t] = kAmxRows;
        c.colsb[t] = 4 * kTokens;
    }
    if constexpr (K::C == 1) {
        c.colsb[1] = 32;
        c.rows[2] = 8;
    }
    load_amx_tile_config(c);
}

KVW_AMX void amx_release() { _tile_release(); }

// Block b's sums for the kAmxRows rows × sixteen tokens into `into` (row r's sixteen int32 of
// sum s at into[s][r]).
template <class K>
KVW_AMX inline __attribute__((always_inline)) void amx_sums(const AmxW<K>* rows, int64_t b,
                                                            size_t row_bytes, const XBlock<K>& x,
                                                            int32_t (*into)[kAmxRows][kTokens]) {
    constexpr size_t kStride = 4 * kTokens;  // bytes of a row of x's tile and of the sums'
    const auto* x_bytes = reinterpret_cast<const uint8_t*>(x.q);
    if constexpr (K::C == 1) {
        _tile_zero(0);
        _tile_loadd(1, rows[b].q, row_bytes);
        _tile_loadd(2, x_bytes, kStride);
        _tile_dpbusd(0, 1, 2);
        _tile_stored(0, into[0], kStride);
    } else {
        _tile_zero(0);
        _tile_zero(1);
        for (int k = 0; k < 256; k += 64) {
            _tile_loadd(2, rows[b].lo + k, row_bytes);
            _tile_loadd(3, rows[b].hi + k, row_bytes);
            _tile_loadd(4, x_bytes + k / 4 * kStride, kStride);
            _tile_dpbuud(0, 2, 4);
            _tile_dpbsud(1, 3, 4);
        }
        _tile_stored(0, into[0], kStride);
        _tile_stored(1, into[1], kStride);
    }
}

// kAmxRows unpacked rows, `blocks` blocks each and a row's blocks apart, × the sixteen tokens of
// xs (tokens t0 ..), as `tile` computes them; the tiles a block ahead of the vector steps.
template <class K>
KVW_AMX void amx_tile(const AmxW<K>* rows, int64_t blocks, const int64_t* row_of,
                      const XBlock<K>* xs, int64_t t0, int valid, float* y, int64_t y_stride) {
    const size_t row_bytes = size_t(blocks) * sizeof(AmxW<K>);
    alignas(64) int32_t sums[2][kAmxSums<K>][kAmxRows][kTokens];
    __m512 acc[kAmxRows];
#pragma GCC unroll 16
    for (int r = 0; r < kAmxRows; ++r) acc[r] = _mm512_setzero_ps();
    amx_sums<K>(rows, 0, row_bytes, xs[0], sums[0]);
    for (int64_t b = 0; b < blocks; ++b) {
        if (b + 1 < blocks) amx_sums<K>(rows, b + 1, row_bytes, xs[b + 1], sums[(b + 1) % 2]);
        const XBlock<K>& x = xs[b];
        int32_t(*const block)[kAmxRows][kTokens] = sums[b % 2];
        const __m512 dx = _mm512_load_ps(x.d);
        for (int r = 0; r < kAmxRows; ++r) {
            const AmxW<K>& w = rows[r * blocks + b];
            __m512i sum;
            if constexpr (K::C == 1)
                sum = _mm512_add_epi32(_mm512_load_si512(x.corr.v), _mm512_load_si512(block[0][r]));
            else
                sum = _mm512_add_epi32(
                    _mm512_add_epi32(_mm512_set1_epi32(w.corr), _mm512_load_si512(block[0][r])),
                    sll(_mm512_load_si512(block[1][r]), 8));
            block_step(acc[r], w, x, dx, sum);
        }
    }
    store_outputs<kAmxRows>(acc, row_of, t0, valid, y, y_stride);
}

// A row's blocks unpacked (here, where the steps inline; not in the lambda below, which lacks
// the target), as K::W or, for the amx tiles of Q4_K / Q6_K, as AmxBlock256
template <class K, class W>
KVW_SIMD void unpack_row(const uint8_t* row, int64_t blocks, W* out) {
    for (int64_t b = 0; b < blocks; ++b) {
        if constexpr (std::is_same_v<W, typename K::W>)
            K::unpack(row + b * K::kBytes, out[b]);
        else
            amx_unpack<K>(row + b * K::kBytes, out[b]);
    }
}

// x laid out per call, a chunk of tokens whose layout fits kChunkBytes (in L2 while every row
// tile passes); each tile's rows unpacked once per chunk (in L1 while the chunk's vectors of
// tokens pass), the rows in tiles of R, the rest one at a time. Measured (one thread, 128
// tokens, thread CPU time): R = 4 beat 1 to 6 rows by one or two vectors of tokens (Q4_K took
// 3 until its chunks were scaled in pairs, then 4: 178–194 against 165–185 GFLOP/s); unpacking
// once per chunk beat unpacking per vector by 1.1-1.3×.
constexpr int64_t kChunkBytes = 768 << 10;  // 256 KiB and 1.5 MiB were slower on 5632 columns

// With kAmx (R = kAmxRows) the row tiles are amx_tile's, the rows left over tiles of four and
// one.
template <class K, int R, bool kAmx = false>
KVW_SIMD void batch(const WeightTensor& w, const void* xv, int n, float* y, int64_t row_begin,
                    int64_t row_end) {
    static_assert(!kAmx || R == kAmxRows);
    const auto* x = static_cast<const typename K::Act*>(xv);
    const int64_t blocks = w.cols / (32 * K::C);
    const int64_t groups = (n + kTokens - 1) / kTokens;
    const int64_t per_chunk =
        std::max<int64_t>(1, kChunkBytes / (blocks * int64_t(sizeof(XBlock<K>))));
    thread_local std::vector<XBlock<K>> laid;
    thread_local std::vector<typename K::W> unpacked;
    thread_local std::vector<AmxW<K>> amx_unpacked;
    laid.resize(size_t(std::min(groups, per_chunk) * blocks));
    unpacked.resize(size_t(std::min(R, 4) * blocks));
    if constexpr (kAmx) amx_unpacked.resize(size_t(kAmxRows * blocks));
    for (int64_t g0 = 0; g0 < groups; g0 += per_chunk) {
        const int64_t g1 = std::min(groups, g0 + per_chunk);
        for (int64_t g = g0; g < g1; ++g)
            lay_out<K>(x, blocks, g * kTokens, n, laid.data() + (g - g0) * blocks);
        const auto rows_from = [&]<int RR>(int64_t r0) {
            int64_t row_of[RR];
            for (int i = 0; i < RR; ++i) row_of[i] = r0 + i;
            if constexpr (kAmx && RR == kAmxRows) {
                for (int i = 0; i < RR; ++i)
                    unpack_row<K>(w.row_ptr(r0 + i), blocks, amx_unpacked.data() + i * blocks);
                for (int64_t g = g0; g < g1; ++g)
                    amx_tile<K>(amx_unpacked.data(), blocks, row_of,
                                laid.data() + (g - g0) * blocks, g * kTokens, int(n - g * kTokens),
                                y, w.rows);
            } else {
                const typename K::W* rows[RR];
                for (int i = 0; i < RR; ++i) {
                    typename K::W* out = unpacked.data() + i * blocks;
                    unpack_row<K>(w.row_ptr(r0 + i), blocks, out);
                    rows[i] = out;
                }
                for (int64_t g = g0; g < g1; ++g)
                    tile<K, RR>(rows, row_of, laid.data() + (g - g0) * blocks, blocks, g * kTokens,
                                int(n - g * kTokens), y, w.rows);
            }
        };
        int64_t r = row_begin;
        for (; r + R <= row_end; r += R) rows_from.template operator()<R>(r);
        if constexpr (R > 4)
            for (; r + 4 <= row_end; r += 4) rows_from.template operator()<4>(r);
        for (; r < row_end; ++r) rows_from.template operator()<1>(r);
    }
}

// The amx path's batches: the tile configured for K on this thread while they run.
template <class K>
KVW_SIMD void amx_batch(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                        int64_t row_end) {
    amx_configure<K>();
    batch<K, kAmxRows, true>(w, x, n, y, row_begin, row_end);
    amx_release();
}

}  // namespace

bool fast_batch_amx(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                    int64_t row_end) {
    switch (w.dtype) {
        case DType::Q8_0: amx_batch<Q8_0Batch>(w, x, n, y, row_begin, row_end); return true;
        case DType::Q4_0: amx_batch<Q4_0Batch>(w, x, n, y, row_begin, row_end); return true;
        case DType::Q4_K: amx_batch<Q4_KBatch>(w, x, n, y, row_begin, row_end); return true;
        case DType::Q6_K: amx_batch<Q6_KBatch>(w, x, n, y, row_begin, row_end); return true;
        default: return false;
    }
}

bool fast_batch_vnni(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                     int64_t row_end) {
    switch (w.dtype) {
        case DType::Q8_0: batch<Q8_0Batch, 4>(w, x, n, y, row_begin, row_end); return true;
        case DType::Q4_0: batch<Q4_0Batch, 4>(w, x, n, y, row_begin, row_end); return true;
        case DType::Q4_K: batch<Q4_KBatch, 4>(w, x, n, y, row_begin, row_end); return true;
        case DType::Q6_K: batch<Q6_KBatch, 4>(w, x, n, y, row_begin, row_end); return true;
        default: return false;
    }
}

}  // namespace kvw::cpu

#endif  // __x86_64__
