// `cpu:fast`'s attention on AVX-512 (fast_attention.h): hd in the sixteen lanes of a vector, so a
// K value is loaded once per sixteen products (the reference broadcasts one per product,
// attention_kernels.h), and a chunk's K and V rows are read once for every head of the query.
// Only these functions carry the target attribute; the backend calls them after checking the
// CPU at run time.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "core/backend/cpu/cpu_features.h"
#include "core/backend/cpu/fast_attention.h"
#include "core/math/softmax_exp.h"

#define KVW_SIMD __attribute__((target("avx512f,avx512bw,avx512vl,fma,f16c")))

namespace kvw::cpu {

namespace {

// The maskz forms with every lane (kAll) keep GCC 12 from warning about the _mm512_undefined
// inside the plain intrinsics (as fast_lanes512.inc).
constexpr __mmask16 kAll = 0xffff;

struct Lanes {
    using V = __m512;

    KVW_SIMD static V set1(float f) { return _mm512_set1_ps(f); }
    KVW_SIMD static V add(V a, V b) { return _mm512_add_ps(a, b); }
    KVW_SIMD static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
    KVW_SIMD static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
    KVW_SIMD static V max(V a, V b) { return _mm512_maskz_max_ps(kAll, a, b); }
    KVW_SIMD static V floor(V v) {
        return _mm512_maskz_roundscale_ps(kAll, v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    }
    KVW_SIMD static V pow2(V n) {
        const __m512i e =
            _mm512_maskz_add_epi32(kAll, _mm512_maskz_cvtps_epi32(kAll, n), _mm512_set1_epi32(127));
        return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(kAll, e, 23));
    }
    KVW_SIMD static V zero_below(V x, float bound, V v) {
        return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, set1(bound), _CMP_NLT_UQ), v);
    }
};

using V = Lanes::V;

#include "core/backend/cpu/softmax_exp_lanes.inc"

constexpr int kLanes = 16;
// Rows whose scores are folded together: sixteen sums become one vector of sixteen scores.
constexpr int kScoreRows = 16;
// Heads whose weighted values share each V load.
constexpr int kValueHeads = 4;

KVW_SIMD inline __mmask16 first_lanes(int n) {
    return n >= kLanes ? __mmask16(0xffff) : __mmask16((1u << n) - 1u);
}

// Lanes of values [at, at + 16) of a row stored as T, widened to float exactly; lanes outside
// `m` read as 0.
template <KvType T>
KVW_SIMD inline V load_row(const void* row, int at, __mmask16 m) {
    if constexpr (T == KvType::F32) {
        return _mm512_maskz_loadu_ps(m, static_cast<const float*>(row) + at);
    } else {
        const __m256i h = _mm256_maskz_loadu_epi16(m, static_cast<const uint16_t*>(row) + at);
        if constexpr (T == KvType::F16) return _mm512_maskz_cvtph_ps(kAll, h);
        return _mm512_castsi512_ps(
            _mm512_maskz_slli_epi32(kAll, _mm512_maskz_cvtepu16_epi32(kAll, h), 16));
    }
}

// Sixteen vectors of sixteen lane sums to one vector of their fold16s (fast_attention.h), as a
// tree of adds: lane i of the result is fold16 of a[slot(i)], slot(i) = 4 · (i mod 4) + i / 4
// (the callers put row i in that slot). Each level adds the pairs fold16 adds.
// Inlined with its loops unrolled, so that the sixteen sums and the tree stay in registers.
KVW_SIMD __attribute__((always_inline)) inline V fold16_transposed(const V (&a)[16]) {
    V x[8], z[4], g[2];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)  // lanes l + (l + 8): two rows per vector
        x[i] = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(kAll, a[2 * i], a[2 * i + 1], 0x44),
                             _mm512_maskz_shuffle_f32x4(kAll, a[2 * i], a[2 * i + 1], 0xee));
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i)  // p_m = t_m + t_(m+4): a row per 128-bit quarter
        z[i] = _mm512_add_ps(_mm512_maskz_shuffle_f32x4(kAll, x[2 * i], x[2 * i + 1], 0x88),
                             _mm512_maskz_shuffle_f32x4(kAll, x[2 * i], x[2 * i + 1], 0xdd));
#pragma GCC unroll 2
    for (int i = 0; i < 2; ++i)  // p0 + p2 and p1 + p3
        g[i] = _mm512_add_ps(
            _mm512_maskz_shuffle_ps(kAll, z[2 * i], z[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
            _mm512_maskz_shuffle_ps(kAll, z[2 * i], z[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm512_add_ps(_mm512_maskz_shuffle_ps(kAll, g[0], g[1], _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_maskz_shuffle_ps(kAll, g[0], g[1], _MM_SHUFFLE(3, 1, 3, 1)));
}

// Rows far apart in memory defeat the hardware prefetcher: a row is asked for whole (every
// K/V head) before it is needed.
KVW_SIMD inline void prefetch_row(const void* row, int bytes) {
    for (int b = 0; b < bytes; b += 64) __builtin_prefetch(static_cast<const char*>(row) + b);
}

// Scores of the chunk's rows [r0, r1), K of type T, hd in NV vectors (the last maybe partial),
// for every head: sixteen rows at a time, the head's query held in registers and each row's K
// vectors loaded once per head (from L1 after the first head of the rows). The next sixteen
// rows' K (k_bytes a row) and these rows' V (v_bytes) are asked for meanwhile.
template <KvType T, int NV>
KVW_SIMD void scores(const FastAttentionChunk& c, int r0, int r1, int k_bytes, int v_bytes) {
    const V scale = _mm512_set1_ps(c.scale);
    __mmask16 m[NV];
    for (int x = 0; x < NV; ++x) m[x] = first_lanes(c.hd - x * kLanes);
    for (int r = r0; r < r1; r += kScoreRows) {
        const int n = std::min(kScoreRows, r1 - r);
        for (int i = r + kScoreRows; i < std::min(r + 2 * kScoreRows, r1); ++i)
            prefetch_row(c.k_rows[i], k_bytes);
        for (int i = r; i < r + n; ++i) prefetch_row(c.v_rows[i], v_bytes);
        const void* rows[kScoreRows];  // row i in slot 4 · (i mod 4) + i / 4, past n: row r
        for (int i = 0; i < kScoreRows; ++i)
            rows[4 * (i % 4) + i / 4] = c.k_rows[i < n ? r + i : r];
        for (int h = 0; h < c.n_heads; ++h) {
            const float* q = c.q + size_t(h) * c.hd;
            const int at = (h / c.group) * c.hd;
            V qv[NV];
#pragma GCC unroll 8
            for (int x = 0; x < NV; ++x) qv[x] = _mm512_maskz_loadu_ps(m[x], q + x * kLanes);
            V acc[kScoreRows];
#pragma GCC unroll 16
            for (int s = 0; s < kScoreRows; ++s) {
                acc[s] = _mm512_mul_ps(qv[0], load_row<T>(rows[s], at, m[0]));
#pragma GCC unroll 8
                for (int x = 1; x < NV; ++x)
                    acc[s] =
                        _mm512_fmadd_ps(qv[x], load_row<T>(rows[s], at + x * kLanes, m[x]), acc[s]);
            }
            _mm512_mask_storeu_ps(c.e + size_t(h) * c.e_stride + r, first_lanes(n),
                                  _mm512_mul_ps(fold16_transposed(acc), scale));
        }
    }
}

// scores<T, NV> for this chunk's hd (at most kFastAttentionMaxHeadDim: NV ≤ 8).
template <KvType T>
KVW_SIMD void scores_of(const FastAttentionChunk& c, int r0, int r1, int k_bytes, int v_bytes) {
    switch ((c.hd + kLanes - 1) / kLanes) {
        case 1: scores<T, 1>(c, r0, r1, k_bytes, v_bytes); break;
        case 2: scores<T, 2>(c, r0, r1, k_bytes, v_bytes); break;
        case 3: scores<T, 3>(c, r0, r1, k_bytes, v_bytes); break;
        case 4: scores<T, 4>(c, r0, r1, k_bytes, v_bytes); break;
        case 5: scores<T, 5>(c, r0, r1, k_bytes, v_bytes); break;
        case 6: scores<T, 6>(c, r0, r1, k_bytes, v_bytes); break;
        case 7: scores<T, 7>(c, r0, r1, k_bytes, v_bytes); break;
        default: scores<T, 8>(c, r0, r1, k_bytes, v_bytes); break;
    }
}

// e_j = exp(score_j − m_c) in place, m_c and s_c, for every head.
KVW_SIMD void softmax(const FastAttentionChunk& c) {
    for (int h = 0; h < c.n_heads; ++h) {
        float* e = c.e + size_t(h) * c.e_stride;
        V mv = _mm512_set1_ps(e[0]);
        for (int j = 0; j < c.rows; j += kLanes)
            mv = _mm512_maskz_max_ps(kAll, mv,
                                     _mm512_mask_loadu_ps(mv, first_lanes(c.rows - j), e + j));
        alignas(64) float lanes[kLanes];
        _mm512_store_ps(lanes, mv);
        float m = lanes[0];
        for (int l = 1; l < kLanes; ++l) m = lanes[l] > m ? lanes[l] : m;
        V sum = _mm512_setzero_ps();
        for (int j = 0; j < c.rows; j += kLanes) {
            const __mmask16 valid = first_lanes(c.rows - j);
            const V x = exp_nonpositive(
                _mm512_sub_ps(_mm512_maskz_loadu_ps(valid, e + j), _mm512_set1_ps(m)));
            _mm512_mask_storeu_ps(e + j, valid, x);
            sum = _mm512_add_ps(sum, _mm512_maskz_mov_ps(valid, x));  // lanes past the rows add +0
        }
        _mm512_store_ps(lanes, sum);
        c.m[h] = m;
        c.s[h] = fold16(lanes);
    }
}

// acc[t][x] += e_j of head t · V vector x of rows [j0, j1), rows of type T: each V vector is
// loaded once for the H heads. The sums run in a copy: GCC stores an array it was handed by
// reference back to memory after every row.
template <KvType T, int H, int C>
KVW_SIMD inline void add_rows(const FastAttentionChunk& c, const float* const* e, int at,
                              const __mmask16* m, V (&acc)[H][C], int j0, int j1) {
    V a[H][C];
#pragma GCC unroll 4
    for (int t = 0; t < H; ++t)
#pragma GCC unroll 4
        for (int x = 0; x < C; ++x) a[t][x] = acc[t][x];
    for (int j = j0; j < j1; ++j) {
        V v[C];
#pragma GCC unroll 4
        for (int x = 0; x < C; ++x) v[x] = load_row<T>(c.v_rows[j], at + x * kLanes, m[x]);
#pragma GCC unroll 4
        for (int t = 0; t < H; ++t) {
            const V w = _mm512_set1_ps(e[t][j]);
#pragma GCC unroll 4
            for (int x = 0; x < C; ++x) a[t][x] = _mm512_fmadd_ps(w, v[x], a[t][x]);
        }
    }
#pragma GCC unroll 4
    for (int t = 0; t < H; ++t)
#pragma GCC unroll 4
        for (int x = 0; x < C; ++x) acc[t][x] = a[t][x];
}

// o_c of H heads from h0, values [d0, d0 + C · 16) (the part below hd). Rows below stored_rows
// are of type T, the rest float32.
template <KvType T, int H, int C>
KVW_SIMD void values(const FastAttentionChunk& c, int h0, int d0) {
    const int at = (h0 / c.group) * c.hd + d0;
    __mmask16 m[C];
    for (int x = 0; x < C; ++x) m[x] = first_lanes(c.hd - d0 - x * kLanes);
    const float* e[H];
    for (int t = 0; t < H; ++t) e[t] = c.e + size_t(h0 + t) * c.e_stride;
    V acc[H][C];
#pragma GCC unroll 4
    for (int t = 0; t < H; ++t)
#pragma GCC unroll 4
        for (int x = 0; x < C; ++x) acc[t][x] = _mm512_setzero_ps();
    add_rows<T, H, C>(c, e, at, m, acc, 0, c.stored_rows);
    add_rows<KvType::F32, H, C>(c, e, at, m, acc, c.stored_rows, c.rows);
    for (int t = 0; t < H; ++t)
        for (int x = 0; x < C; ++x)
            _mm512_mask_storeu_ps(c.o + size_t(h0 + t) * c.hd + d0 + x * kLanes, m[x], acc[t][x]);
}

// hd in blocks of 64 values (four vectors: four V loads for sixteen FMAs with four heads), the
// rest in two and one.
template <KvType T, int H>
KVW_SIMD void values_of_heads(const FastAttentionChunk& c, int h0) {
    int d0 = 0;
    for (; d0 + 3 * kLanes < c.hd; d0 += 4 * kLanes) values<T, H, 4>(c, h0, d0);
    if (d0 + kLanes < c.hd) {
        values<T, H, 2>(c, h0, d0);
        d0 += 2 * kLanes;
    }
    if (d0 < c.hd) values<T, H, 1>(c, h0, d0);
}

template <KvType T>
KVW_SIMD void all_values(const FastAttentionChunk& c) {
    for (int g0 = 0; g0 < c.n_heads; g0 += c.group) {
        int h = g0;
        for (; h + kValueHeads <= g0 + c.group; h += kValueHeads)
            values_of_heads<T, kValueHeads>(c, h);
        switch (g0 + c.group - h) {
            case 3: values_of_heads<T, 3>(c, h); break;
            case 2: values_of_heads<T, 2>(c, h); break;
            case 1: values_of_heads<T, 1>(c, h); break;
            default: break;
        }
    }
}

KVW_SIMD void chunk_avx512(const FastAttentionChunk& c) {
    const int k_bytes = c.kv_dim * kv_type_bytes(c.k_type);
    const int v_bytes = c.kv_dim * kv_type_bytes(c.v_type);
    switch (c.k_type) {
        case KvType::F16: scores_of<KvType::F16>(c, 0, c.stored_rows, k_bytes, v_bytes); break;
        case KvType::BF16: scores_of<KvType::BF16>(c, 0, c.stored_rows, k_bytes, v_bytes); break;
        default: scores_of<KvType::F32>(c, 0, c.stored_rows, k_bytes, v_bytes); break;
    }
    const int f32_bytes = c.kv_dim * int(sizeof(float));
    scores_of<KvType::F32>(c, c.stored_rows, c.rows, f32_bytes, f32_bytes);
    softmax(c);
    switch (c.v_type) {
        case KvType::F16: all_values<KvType::F16>(c); break;
        case KvType::BF16: all_values<KvType::BF16>(c); break;
        default: all_values<KvType::F32>(c); break;
    }
}

KVW_SIMD void merge_avx512(int n_chunks, const float* m, const float* s, size_t stride,
                           const float* o, size_t o_stride, int hd, float* out, float* weights) {
    float top = m[0];
    for (int c = 1; c < n_chunks; ++c) top = m[c * stride] > top ? m[c * stride] : top;
    for (int c = 0; c < n_chunks; ++c) weights[c] = m[c * stride];
    for (int c = 0; c < n_chunks; c += kLanes) {
        const __mmask16 valid = first_lanes(n_chunks - c);
        const V x = _mm512_sub_ps(_mm512_maskz_loadu_ps(valid, weights + c), _mm512_set1_ps(top));
        _mm512_mask_storeu_ps(weights + c, valid, exp_nonpositive(x));
    }
    __m128 total = _mm_setzero_ps();
    for (int c = 0; c < n_chunks; ++c)
        total = _mm_fmadd_ss(_mm_set_ss(weights[c]), _mm_set_ss(s[c * stride]), total);
    const float inv = 1.0f / _mm_cvtss_f32(total);
    for (int d = 0; d < hd; d += kLanes) {
        const __mmask16 lanes = first_lanes(hd - d);
        V acc = _mm512_setzero_ps();
        for (int c = 0; c < n_chunks; ++c)
            acc = _mm512_fmadd_ps(_mm512_set1_ps(weights[c]),
                                  _mm512_maskz_loadu_ps(lanes, o + c * o_stride + d), acc);
        _mm512_mask_storeu_ps(out + d, lanes, _mm512_mul_ps(acc, _mm512_set1_ps(inv)));
    }
    for (int c = 0; c < n_chunks; ++c) weights[c] *= inv;
}

}  // namespace

void fast_attention_chunk_avx512(const FastAttentionChunk& chunk) { chunk_avx512(chunk); }
void fast_attention_merge_avx512(int n_chunks, const float* m, const float* s, size_t stride,
                                 const float* o, size_t o_stride, int hd, float* out,
                                 float* weights) {
    merge_avx512(n_chunks, m, s, stride, o, o_stride, hd, out, weights);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
