// `cpu:fast`'s attention on AVX-512 (fast_attention.h). A chunk's K rows are transposed once
// for every query and head that reads them, so sixteen rows' scores are one vector and a load of
// sixteen K values serves four query heads (the reference broadcasts one K value per product,
// attention_kernels.h); a chunk's V rows are loaded once per four heads of a query. Only these
// functions carry the target attribute; the backend calls them after checking the CPU at run
// time.
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
constexpr int kChunk = kFastAttentionChunkRows;
static_assert(kChunk % kLanes == 0 && kChunk / kLanes <= 4);
// Streams (query, head) whose scores share each load of transposed K.
constexpr int kScoreStreams = 4;
// Heads whose weighted values share each V load.
constexpr int kValueHeads = 4;

KVW_SIMD inline __mmask16 first_lanes(int n) {
    return n >= kLanes ? __mmask16(0xffff) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1u);
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

KVW_SIMD inline V load_row(KvType t, const void* row, int at, __mmask16 m) {
    switch (t) {
        case KvType::F16: return load_row<KvType::F16>(row, at, m);
        case KvType::BF16: return load_row<KvType::BF16>(row, at, m);
        default: return load_row<KvType::F32>(row, at, m);
    }
}

KVW_SIMD inline __m512d pd(V x) { return _mm512_castps_pd(x); }
KVW_SIMD inline V ps(__m512d x) { return _mm512_castpd_ps(x); }

// Sixteen rows of sixteen floats become sixteen columns, in place (r[c] holds column c):
// pairs of rows interleaved, then pairs of pairs, then 128-bit quarters gathered twice.
KVW_SIMD __attribute__((always_inline)) inline void transpose16(V (&r)[16]) {
    V t[16], u[16];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm512_maskz_unpacklo_ps(kAll, r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_maskz_unpackhi_ps(kAll, r[2 * i], r[2 * i + 1]);
    }
    // u[4k + m], quarter L: column 4L + m of rows 4k … 4k + 3.
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
        u[4 * k] = ps(_mm512_maskz_unpacklo_pd(0xff, pd(t[4 * k]), pd(t[4 * k + 2])));
        u[4 * k + 1] = ps(_mm512_maskz_unpackhi_pd(0xff, pd(t[4 * k]), pd(t[4 * k + 2])));
        u[4 * k + 2] = ps(_mm512_maskz_unpacklo_pd(0xff, pd(t[4 * k + 1]), pd(t[4 * k + 3])));
        u[4 * k + 3] = ps(_mm512_maskz_unpackhi_pd(0xff, pd(t[4 * k + 1]), pd(t[4 * k + 3])));
    }
#pragma GCC unroll 4
    for (int m = 0; m < 4; ++m) {
        // Columns m and m + 8 (quarters 0 and 2 of each u), m + 4 and m + 12 (quarters 1, 3).
        const V lo_a = _mm512_maskz_shuffle_f32x4(kAll, u[m], u[4 + m], 0x88);
        const V lo_b = _mm512_maskz_shuffle_f32x4(kAll, u[8 + m], u[12 + m], 0x88);
        const V hi_a = _mm512_maskz_shuffle_f32x4(kAll, u[m], u[4 + m], 0xdd);
        const V hi_b = _mm512_maskz_shuffle_f32x4(kAll, u[8 + m], u[12 + m], 0xdd);
        r[m] = _mm512_maskz_shuffle_f32x4(kAll, lo_a, lo_b, 0x88);
        r[m + 8] = _mm512_maskz_shuffle_f32x4(kAll, lo_a, lo_b, 0xdd);
        r[m + 4] = _mm512_maskz_shuffle_f32x4(kAll, hi_a, hi_b, 0x88);
        r[m + 12] = _mm512_maskz_shuffle_f32x4(kAll, hi_a, hi_b, 0xdd);
    }
}

// A row, whole, is asked for before it is needed: rows far apart in memory (behind an index)
// defeat the hardware prefetcher.
KVW_SIMD inline void prefetch_row(const void* row, int bytes) {
    for (int b = 0; b < bytes; b += 64) __builtin_prefetch(static_cast<const char*>(row) + b);
}

// The chunk's first `rows` K rows into k_transposed: value d of row r at d · kChunk + r, rows
// past `rows` up to the next sixteen as 0. The next sixteen rows are asked for meanwhile (rows
// behind an index can be far apart, which defeats the hardware prefetcher; asking for V rows,
// or for rows a chunk ahead, measured no faster).
KVW_SIMD void transpose_k(const FastAttentionChunk& c, int rows) {
    const int k_bytes = c.kv_dim * kv_type_bytes(c.k_type);
    for (int r = 0; r < std::min(rows, kLanes); ++r)
        prefetch_row(c.k_rows[r], r < c.stored_rows ? k_bytes : c.kv_dim * int(sizeof(float)));
    for (int r0 = 0; r0 < rows; r0 += kLanes) {
        for (int r = r0 + kLanes; r < std::min(rows, r0 + 2 * kLanes); ++r)
            prefetch_row(c.k_rows[r], r < c.stored_rows ? k_bytes : c.kv_dim * int(sizeof(float)));
        for (int d0 = 0; d0 < c.kv_dim; d0 += kLanes) {
            const __mmask16 m = first_lanes(c.kv_dim - d0);
            V x[16];
#pragma GCC unroll 16
            for (int i = 0; i < kLanes; ++i) {
                const int r = r0 + i;
                x[i] = r >= rows ? _mm512_setzero_ps()
                                 : load_row(r < c.stored_rows ? c.k_type : KvType::F32, c.k_rows[r],
                                            d0, m);
            }
            transpose16(x);
            float* to = c.k_transposed + size_t(d0) * kChunk + r0;
            const int n = std::min(kLanes, c.kv_dim - d0);
            for (int i = 0; i < n; ++i) _mm512_store_ps(to + size_t(i) * kChunk, x[i]);
        }
    }
}

// One score stream: a query's head, its query values and where its e_j go.
struct Stream {
    const float* q;
    float* e;
    int rows;
};

// Scores of S streams of one K/V head (its transposed values at kt) over rows [0, 16 · RV):
// each load of sixteen rows' value d serves the S streams; lane r of a stream sums its
// products over d in order, the first a product.
template <int S, int RV>
KVW_SIMD void score_tile(const float* kt, int hd, float scale, const Stream* st) {
    V acc[S][RV];
    {
        V k[RV];
#pragma GCC unroll 4
        for (int v = 0; v < RV; ++v) k[v] = _mm512_load_ps(kt + v * kLanes);
#pragma GCC unroll 4
        for (int s = 0; s < S; ++s) {
            const V q = _mm512_set1_ps(st[s].q[0]);
#pragma GCC unroll 4
            for (int v = 0; v < RV; ++v) acc[s][v] = _mm512_mul_ps(q, k[v]);
        }
    }
    for (int d = 1; d < hd; ++d) {
        const float* row = kt + size_t(d) * kChunk;
        V k[RV];
#pragma GCC unroll 4
        for (int v = 0; v < RV; ++v) k[v] = _mm512_load_ps(row + v * kLanes);
#pragma GCC unroll 4
        for (int s = 0; s < S; ++s) {
            const V q = _mm512_set1_ps(st[s].q[d]);
#pragma GCC unroll 4
            for (int v = 0; v < RV; ++v) acc[s][v] = _mm512_fmadd_ps(q, k[v], acc[s][v]);
        }
    }
    const V sv = _mm512_set1_ps(scale);
    for (int s = 0; s < S; ++s)
        for (int v = 0; v < RV; ++v)
            _mm512_mask_storeu_ps(st[s].e + v * kLanes, first_lanes(st[s].rows - v * kLanes),
                                  _mm512_mul_ps(acc[s][v], sv));
}

template <int S>
KVW_SIMD void score_tile_of(const float* kt, int hd, float scale, const Stream* st) {
    switch ((st[S - 1].rows + kLanes - 1) / kLanes) {  // the tile's longest stream is its last
        case 1: score_tile<S, 1>(kt, hd, scale, st); break;
        case 2: score_tile<S, 2>(kt, hd, scale, st); break;
        case 3: score_tile<S, 3>(kt, hd, scale, st); break;
        default: score_tile<S, 4>(kt, hd, scale, st); break;
    }
}

// Every query's and head's scores, K/V head after K/V head, the streams of one K/V head (its
// heads of each query in turn) in tiles of kScoreStreams.
KVW_SIMD void scores(const FastAttentionChunk& c) {
    const int streams = c.n_queries * c.group;
    for (int g = 0; g < c.n_heads / c.group; ++g) {
        const float* kt = c.k_transposed + size_t(g) * c.hd * kChunk;
        for (int t0 = 0; t0 < streams; t0 += kScoreStreams) {
            Stream st[kScoreStreams];
            const int n = std::min(kScoreStreams, streams - t0);
            for (int t = 0; t < n; ++t) {
                const int i = (t0 + t) / c.group, h = g * c.group + (t0 + t) % c.group;
                st[t] = {c.q + i * c.q_stride + size_t(h) * c.hd,
                         c.e + i * c.e_query_stride + h * c.e_head_stride, c.rows_of(i)};
            }
            switch (n) {
                case 1: score_tile_of<1>(kt, c.hd, c.scale, st); break;
                case 2: score_tile_of<2>(kt, c.hd, c.scale, st); break;
                case 3: score_tile_of<3>(kt, c.hd, c.scale, st); break;
                default: score_tile_of<4>(kt, c.hd, c.scale, st); break;
            }
        }
    }
}

// e_j = exp(score_j − m_c) in place over the stream's rows, m_c and s_c.
KVW_SIMD void softmax(float* e, int rows, float* m_out, float* s_out) {
    V mv = _mm512_set1_ps(e[0]);
    for (int j = 0; j < rows; j += kLanes)
        mv = _mm512_maskz_max_ps(kAll, mv, _mm512_mask_loadu_ps(mv, first_lanes(rows - j), e + j));
    alignas(64) float lanes[kLanes];
    _mm512_store_ps(lanes, mv);
    float m = lanes[0];
    for (int l = 1; l < kLanes; ++l) m = lanes[l] > m ? lanes[l] : m;
    V sum = _mm512_setzero_ps();
    for (int j = 0; j < rows; j += kLanes) {
        const __mmask16 valid = first_lanes(rows - j);
        const V x =
            exp_nonpositive(_mm512_sub_ps(_mm512_maskz_loadu_ps(valid, e + j), _mm512_set1_ps(m)));
        _mm512_mask_storeu_ps(e + j, valid, x);
        sum = _mm512_add_ps(sum, _mm512_maskz_mov_ps(valid, x));  // lanes past the rows add +0
    }
    _mm512_store_ps(lanes, sum);
    *m_out = m;
    *s_out = fold16(lanes);
}

// What the weighted values of one query read and write.
struct QueryValues {
    const FastAttentionChunk& c;
    float* e;  // head h's e_j at e + h · c.e_head_stride + j
    float* o;  // head h's o_c at o + h · c.hd
    int rows;
};

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
KVW_SIMD void values(const QueryValues& q, int h0, int d0) {
    const FastAttentionChunk& c = q.c;
    const int at = (h0 / c.group) * c.hd + d0;
    __mmask16 m[C];
    for (int x = 0; x < C; ++x) m[x] = first_lanes(c.hd - d0 - x * kLanes);
    const float* e[H];
    for (int t = 0; t < H; ++t) e[t] = q.e + size_t(h0 + t) * c.e_head_stride;
    V acc[H][C];
#pragma GCC unroll 4
    for (int t = 0; t < H; ++t)
#pragma GCC unroll 4
        for (int x = 0; x < C; ++x) acc[t][x] = _mm512_setzero_ps();
    const int stored = std::min(c.stored_rows, q.rows);
    add_rows<T, H, C>(c, e, at, m, acc, 0, stored);
    add_rows<KvType::F32, H, C>(c, e, at, m, acc, stored, q.rows);
    for (int t = 0; t < H; ++t)
        for (int x = 0; x < C; ++x)
            _mm512_mask_storeu_ps(q.o + size_t(h0 + t) * c.hd + d0 + x * kLanes, m[x], acc[t][x]);
}

// hd in blocks of 64 values (four vectors: four V loads for sixteen FMAs with four heads), the
// rest in two and one.
template <KvType T, int H>
KVW_SIMD void values_of_heads(const QueryValues& q, int h0) {
    const int hd = q.c.hd;
    int d0 = 0;
    for (; d0 + 3 * kLanes < hd; d0 += 4 * kLanes) values<T, H, 4>(q, h0, d0);
    if (d0 + kLanes < hd) {
        values<T, H, 2>(q, h0, d0);
        d0 += 2 * kLanes;
    }
    if (d0 < hd) values<T, H, 1>(q, h0, d0);
}

template <KvType T>
KVW_SIMD void all_values(const QueryValues& q) {
    const FastAttentionChunk& c = q.c;
    for (int g0 = 0; g0 < c.n_heads; g0 += c.group) {
        int h = g0;
        for (; h + kValueHeads <= g0 + c.group; h += kValueHeads)
            values_of_heads<T, kValueHeads>(q, h);
        switch (g0 + c.group - h) {
            case 3: values_of_heads<T, 3>(q, h); break;
            case 2: values_of_heads<T, 2>(q, h); break;
            case 1: values_of_heads<T, 1>(q, h); break;
            default: break;
        }
    }
}

KVW_SIMD void chunk_avx512(const FastAttentionChunk& c) {
    transpose_k(c, c.rows_of(c.n_queries - 1));
    scores(c);
    for (int i = 0; i < c.n_queries; ++i) {
        const QueryValues q{c, c.e + i * c.e_query_stride, c.o + i * c.result_stride, c.rows_of(i)};
        for (int h = 0; h < c.n_heads; ++h)
            softmax(q.e + h * c.e_head_stride, q.rows, c.m + i * c.result_stride + h,
                    c.s + i * c.result_stride + h);
        switch (c.v_type) {
            case KvType::F16: all_values<KvType::F16>(q); break;
            case KvType::BF16: all_values<KvType::BF16>(q); break;
            default: all_values<KvType::F32>(q); break;
        }
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
