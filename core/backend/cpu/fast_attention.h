#pragma once
// Internal to the `cpu:fast` set (fast_cpu_backend.h): its attention kernel, which reads a
// chunk of K/V rows once for every head of one query (docs/ARCHITECTURE.md §5.4).
//
// A query's rows are cut into chunks of kFastAttentionChunkRows from row 0 (the last one
// shorter), whatever the thread count or the batch, and each chunk is one call of a kernel.
// For every head h of the query (K/V head g = h / group), in this order and nothing else:
//   score_j = fold16(lane sums) · scale, lane l (of sixteen) summing q[d] · k_j[d] over
//     d ≡ l mod 16, d increasing, the first term a product, each later one fused into the
//     sum (one rounding per term); fold16 adds the lanes as
//     ((p0 + p2) + (p1 + p3)) with p_m = (l_m + l_(m+8)) + (l_(m+4) + l_(m+12));
//   per chunk c: m_c = max_j score_j; e_j = exp_nonpositive(score_j − m_c) (the polynomial of
//     softmax_exp_lanes.inc); s_c = fold16 of sixteen lanes, lane l summing e_j over the
//     chunk's rows j ≡ l mod 16 in increasing j; o_c[d] = Σ_j e_j · v_j[d], j increasing,
//     fused;
//   the merge (FastAttentionKernel::merge), chunk after chunk from c = 0: M = max_c m_c;
//     w_c = exp_nonpositive(m_c − M) (the same polynomial, fused); S = Σ_c w_c · s_c and
//     O[d] = Σ_c w_c · o_c[d], both fused, starting from 0; out[d] = O[d] · (1 / S); the weight
//     of row j of chunk c is p_j = e_j · (w_c · (1 / S)).
// So a query's numbers depend on nothing but its own rows: not on the batch, the thread, nor
// which other queries or chunks there are; a prefill of N rows followed by decode gives the
// bits of one pass. It is not the reference's order (attention_kernels.h): `cpu:fast`'s
// attention rounds differently from `cpu`'s.
//
// K and V rows are read as stored, f32, f16 or bf16 (each widened to float exactly), so an
// f16 or bf16 cache is not decoded first.
#include <cstddef>
#include <span>
#include <string_view>

#include "core/math/kv_quant.h"

namespace kvw::cpu {

// Rows per chunk: small enough that a decode at a short context still gives each thread a chunk,
// large enough that a chunk's K and V rows are streamed at length.
constexpr int kFastAttentionChunkRows = 64;

// The largest head size the kernels take (a query's head in eight vectors of registers); larger
// heads attend as the reference does.
constexpr int kFastAttentionMaxHeadDim = 128;

// One chunk of one query against its rows [0, rows) of the chunk, for every head.
struct FastAttentionChunk {
    const float* q = nullptr;  // head h: hd floats at q + h · hd
    int n_heads = 0, group = 0, hd = 0;
    int kv_dim = 0;  // elements per K/V row: every K/V head's hd values, head after head
    // Row r of the chunk: K at k_rows[r], V at v_rows[r], each kv_dim values. The first
    // `stored_rows` rows are of types k_type / v_type, the rest float32 (the new items).
    const void* const* k_rows = nullptr;
    const void* const* v_rows = nullptr;
    int rows = 0, stored_rows = 0;
    KvType k_type = KvType::F32, v_type = KvType::F32;
    float scale = 1.0f;
    // Results: head h's m_c at m[h] and s_c at s[h], o_c at o + h · hd, e_j at
    // e + h · e_stride + j.
    float* m = nullptr;
    float* s = nullptr;
    float* o = nullptr;
    float* e = nullptr;
    size_t e_stride = 0;
};

// K/V storage types a kernel reads directly.
constexpr bool fast_attention_reads(KvType t) {
    return t == KvType::F32 || t == KvType::F16 || t == KvType::BF16;
}

// ((p0 + p2) + (p1 + p3)), p_m = (l_m + l_(m+8)) + (l_(m+4) + l_(m+12)): the kernels' fold of
// sixteen lanes, written once for the merge and the tests.
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

struct FastAttentionKernel {
    std::string_view name;  // "avx512"
    bool (*cpu_has)();
    FastAttentionFn chunk;
    FastAttentionMergeFn merge;
};

// Every kernel built into this program, fastest first. A CPU that runs none of them gives
// `cpu:fast` the reference's attention (HostBackend::attention).
std::span<const FastAttentionKernel> fast_attention_kernels();
// The first of them this CPU runs, or null.
const FastAttentionKernel* best_fast_attention_kernel();

}  // namespace kvw::cpu
