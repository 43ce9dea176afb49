#pragma once
// Internal to the `cpu:fast` set (fast_cpu_backend.h): its attention kernel, which reads a
// chunk of K/V rows once for every head of a run of queries (docs/ARCHITECTURE.md §5.4).
//
// A query's rows are cut into chunks of kFastAttentionChunkRows from row 0 (the last one
// shorter), whatever the thread count or the batch. One kernel call takes one chunk and a run
// of consecutive queries that reach it. For every query and head h (K/V head g = h / group), in
// this order and nothing else:
//   score_j = (q[0] · k_j[0], then + q[d] · k_j[d] fused for d = 1 … hd − 1 in order) · scale
//     (the reference's score order, attention_kernels.h);
//   per chunk c: m_c = max_j score_j; e_j = exp_nonpositive(score_j − m_c) (the polynomial of
//     softmax_exp_lanes.inc); s_c = fold16 of sixteen lanes, lane l summing e_j over the
//     chunk's rows j ≡ l mod 16 in increasing j; o_c[d] = Σ_j e_j · v_j[d], j increasing,
//     fused;
//   the merge (FastAttentionKernel::merge), chunk after chunk from c = 0: M = max_c m_c;
//     w_c = exp_nonpositive(m_c − M) (the same polynomial, fused); S = Σ_c w_c · s_c and
//     O[d] = Σ_c w_c · o_c[d], both fused, starting from 0; out[d] = O[d] · (1 / S); the weight
//     of row j of chunk c is p_j = e_j · (w_c · (1 / S)).
// So a query's numbers depend on nothing but its own rows: not on the batch, the thread, nor
// which other queries share its chunks; a prefill of N rows followed by decode gives the bits
// of one pass. Only the softmax and the values differ from the reference's order.
//
// K and V rows are read as stored, f32, f16 or bf16 (each widened to float exactly), so an
// f16 or bf16 cache is not decoded first.
//
// One kernel sums the scores otherwise: avx512fp16 (the amx path's, AttentionScores::Half) sums
// each score in half precision from q and k rounded to halves, and redoes a query's chunk in the
// order above where a half score is out of bounds (fast_attention_half_scores.inc says exactly
// how); everything after the scores is as above. Its bits are its own, and as independent of the
// batch, the thread and the other queries.
#include <cstddef>
#include <span>
#include <string_view>

#include "core/math/kv_quant.h"

namespace kvw::cpu {

// Rows per chunk: small enough that a decode at a short context still gives each thread a chunk
// and that a chunk's K rows, transposed, stay in the second-level cache (64 KiB at kv_dim 256);
// large enough that a chunk's rows are streamed at length.
constexpr int kFastAttentionChunkRows = 64;

// One chunk against a run of queries, every head of each.
struct FastAttentionChunk {
    // Query i (i < n_queries): head h's hd floats at q + i · q_stride + h · hd.
    const float* q = nullptr;
    size_t q_stride = 0;
    int n_queries = 0;
    int n_heads = 0, group = 0, hd = 0;
    int kv_dim = 0;  // elements per K/V row: every K/V head's hd values, head after head
    // Row r of the chunk: K at k_rows[r], V at v_rows[r], each kv_dim values. The first
    // `stored_rows` rows are of types k_type / v_type, the rest float32 (the new items).
    const void* const* k_rows = nullptr;
    const void* const* v_rows = nullptr;
    int stored_rows = 0;
    KvType k_type = KvType::F32, v_type = KvType::F32;
    // Query i attends the chunk's rows [0, rows_of(i)): first_rows + i, at most a chunk.
    int first_rows = 0;
    float scale = 1.0f;
    // Results of query i, head h: m_c at m[i · result_stride + h], s_c at
    // s[i · result_stride + h], o_c at o + i · result_stride + h · hd, e_j at
    // e + i · e_query_stride + h · e_head_stride + j (only j < rows_of(i) is written).
    float* m = nullptr;
    float* s = nullptr;
    float* o = nullptr;
    size_t result_stride = 0;
    float* e = nullptr;
    size_t e_query_stride = 0, e_head_stride = 0;
    // The K/V rows the calling thread reads next (the next chunk's; next_rows 0: none), of
    // types k_type / v_type below next_stored_rows and float32 past them: asked for into the
    // second-level cache a few lines at a time while this chunk's values are computed, so that
    // memory works while the core does. They change no result.
    const void* const* next_k_rows = nullptr;
    const void* const* next_v_rows = nullptr;
    int next_rows = 0, next_stored_rows = 0;
    // Scratch of fast_attention_scratch_floats(kv_dim, hd) floats, 64-byte aligned: the chunk's
    // K rows, transposed or widened as they lie, and the queries' values of a K/V head.
    float* k_scratch = nullptr;
    // Nonzero: calls with the same queries_id on one k_scratch have the same queries (q,
    // n_queries, heads, hd, scale), so a decode's scores take the queries as the call before
    // left them prepared in k_scratch (transposed, scaled, rounded) instead of preparing them
    // again for every chunk (fast_attention_lanes.inc, PreparedQueries). 0: never.
    uint64_t queries_id = 0;

    int rows_of(int i) const {
        return first_rows + i < kFastAttentionChunkRows ? first_rows + i : kFastAttentionChunkRows;
    }
};

// Floats of a chunk row of two K/V heads' values interleaved (the AVX-512 decode's scores,
// fast_attention_lanes.inc), whole vectors of sixteen.
constexpr int fast_attention_pair_stride(int hd) { return (2 * hd + 15) / 16 * 16; }

// Floats of a chunk row of K as floats in k_scratch: all K/V heads, or a pair interleaved.
constexpr int fast_attention_row_floats(int kv_dim, int hd) {
    return kv_dim > fast_attention_pair_stride(hd) ? kv_dim : fast_attention_pair_stride(hd);
}

// Floats of k_scratch from which a decode's prepared queries lie (fast_attention_scratch_floats),
// 64-byte aligned.
constexpr size_t fast_attention_queries_at(int kv_dim, int hd) {
    const size_t at = size_t(fast_attention_row_floats(kv_dim, hd)) * kFastAttentionChunkRows +
                      size_t(hd) * 16 +
                      (size_t(hd) * 16 + 16 + size_t(kv_dim) * kFastAttentionChunkRows / 2);
    return (at + 15) / 16 * 16;
}

// FastAttentionChunk::k_scratch's floats: the chunk's K rows as floats (all K/V heads, or two
// interleaved), then the values of the (at most sixteen) query heads scored in the lanes of one
// vector; then, for the avx512fp16 kernel's half-precision scores, the queries' values and the
// chunk's K rows as halves (fast_attention_half_scores.inc); then a decode's prepared queries
// (at most eight streams a K/V head, sixteen floats a value of a pair of K/V heads, the K/V
// heads rounded up to fours) after sixteen floats that say whose they are.
constexpr size_t fast_attention_scratch_floats(int kv_dim, int hd) {
    return fast_attention_queries_at(kv_dim, hd) + 16 + size_t(kv_dim + 3 * hd) * 8;
}

// K/V storage types a kernel reads directly.
constexpr bool fast_attention_reads(KvType t) {
    return t == KvType::F32 || t == KvType::F16 || t == KvType::BF16;
}

// ((p0 + p2) + (p1 + p3)), p_m = (l_m + l_(m+8)) + (l_(m+4) + l_(m+12)): the kernels' fold of
// sixteen lanes (s_c), written once.
inline float fold16(const float* l) {
    float p[4];
    for (int m = 0; m < 4; ++m) p[m] = (l[m] + l[m + 8]) + (l[m + 4] + l[m + 12]);
    return (p[0] + p[2]) + (p[1] + p[3]);
}

using FastAttentionFn = void (*)(const FastAttentionChunk& chunk);
// One query and head: chunks c < n_chunks whose results sit at m[c · stride], s[c · stride] and
// o + c · o_stride, merged as the contract above says into out (hd floats). Leaves
// w_c · (1 / S) in weights[c], by which chunk c's e_j become p_j.
using FastAttentionMergeFn = void (*)(int n_chunks, const float* m, const float* s, size_t stride,
                                      const float* o, size_t o_stride, int hd, float* out,
                                      float* weights);

// mass[j] += e[j] · w for j < n, each product rounded and then added: a chunk's run of rows'
// p_j = e_j · w_c added into the attention mass (in vectors; written as a plain loop it stayed
// scalar, a twentieth of a decode's attention at 4,096 rows).
using FastAttentionAddWeightedFn = void (*)(float* mass, const float* e, float w, int n);

// How a kernel sums the scores q · k_j: in float32 as the contract above says, or (the
// avx512fp16 kernel) in half precision (fast_attention_half_scores.inc). Kernels that sum them
// the same way give the same bits.
enum class AttentionScores { Float, Half };

struct FastAttentionKernel {
    std::string_view name;  // "avx512fp16", "avx512", "avx2"
    bool (*cpu_has)();
    AttentionScores scores;
    FastAttentionFn chunk;
    FastAttentionMergeFn merge;
    FastAttentionAddWeightedFn add_weighted;
};

// Every kernel built into this program, widest first.
std::span<const FastAttentionKernel> fast_attention_kernels();
// The kernel of that name (FastKernel::attention, fast_kernels.h); std::invalid_argument when
// unknown or when this CPU lacks it.
const FastAttentionKernel& fast_attention_kernel(std::string_view name);

}  // namespace kvw::cpu
