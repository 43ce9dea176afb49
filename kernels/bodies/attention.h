#pragma once
// One layer's grouped-query causal attention as Transformer::attention computes it, as passes
// over a scratch, each thread reducing alone in a fixed order, so that a device gives the same
// bits run after run and the host launcher the same sequence (attention_passes) as the device:
//   scores     a thread per query × head × row: score_j = (Σ_d q[d]·k_j[d], d increasing) · scale;
//   softmax    over the rows a query sees, in chunks of kAttentionChunk rows: each chunk's max
//              (a thread per query × head × chunk), the max over the chunks (a thread per query
//              × head), e_j = exp_nonpositive(score_j − max) (core/math/softmax_exp.h) summed in
//              row order per chunk, the chunk sums added in chunk order, p_j = e_j · (1 / sum)
//              (a thread per query × head × row);
//   values     out[d] = Σ_j p_j·v_j[d]: row order within a chunk (a thread per query × head ×
//              chunk × dimension), the chunks added in order (a thread per query × head ×
//              dimension);
//   mass       when asked: mass_j = Σ_h (Σ_i p_ihj, queries in order), heads in order
//              (Transformer::forward's order), a thread per row.
// The chunks keep every serial chain a thread walks short — one thread per query and head
// walking 4,096 rows made the softmax most of a decode step — while fixing the order of every
// sum. It is not the CPU kernels' order (core/backend/cpu/attention_kernels.h), so the device
// and the CPU agree to rounding (their tests bound the normalised error), not bit for bit.
//
// Context rows are read where the cache keeps them, decoded element by element
// (kv_decode_value, the values kv_decode_row gives), through the layout's row index.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "core/math/hd.h"
#include "core/math/kv_quant.h"
#include "core/math/sliding_window.h"
#include "core/math/softmax_exp.h"
#include "kernels/launch/grid.h"

namespace kvw::cuda {

struct DeviceAttention {
    int rows = 0;  // context rows (may be 0)
    // Stored context rows: physical row p at p · kv_dim elements of k_type / v_type.
    const void* k = nullptr;
    const void* v = nullptr;
    KvType k_type = KvType::F32, v_type = KvType::F32;
    // [physical row][n_kv_heads] for int8 / FP8, else null.
    const float* k_scale = nullptr;
    const float* v_scale = nullptr;
    const int32_t* index = nullptr;              // [rows] physical row of logical row j, or null
    const int32_t* context_positions = nullptr;  // [rows] rope positions (read when window > 0)
    int n = 0;                                   // new items
    const int32_t* positions = nullptr;          // [n] their positions
    const float* q = nullptr;                    // [n][n_heads · head_dim], rotated
    // [n][n_kv_heads · head_dim], as stored (round trip done).
    const float* k_new = nullptr;
    const float* v_new = nullptr;
    float* out = nullptr;      // [n][n_heads · head_dim]
    float* mass = nullptr;     // [rows + n] or null
    float* scratch = nullptr;  // attention_scratch_floats(rows, n, n_heads, head_dim) floats
    int n_heads = 0, n_kv_heads = 0, head_dim = 0;
    int window = 0;  // sliding window (0: none), core/math/sliding_window.h
    float scale = 1.0f;
};

// Rows per chunk of the softmax's and the values' sums.
inline constexpr int kAttentionChunk = 64;

KVW_HD int attention_chunks(int total) { return (total + kAttentionChunk - 1) / kAttentionChunk; }

// Per (query, head): the weights over every row [rows + n], each chunk's max and sum, the max
// and 1 / sum over the rows, and each chunk's partial values [chunks][head_dim].
inline size_t attention_scratch_floats(int rows, int n, int n_heads, int head_dim) {
    const size_t total = size_t(rows + n), chunks = size_t(attention_chunks(rows + n));
    return size_t(n) * size_t(n_heads) * (total + 2 * chunks + 2 + chunks * size_t(head_dim));
}

}  // namespace kvw::cuda

namespace kvw::kern {

// What every pass asks of the attention: which rows a query sees and where their values are.
struct AttentionView {
    cuda::DeviceAttention a;

    KVW_HD int total() const { return a.rows + a.n; }
    KVW_HD int kv_dim() const { return a.n_kv_heads * a.head_dim; }
    KVW_HD int kv_head(int h) const { return h / (a.n_heads / a.n_kv_heads); }

    // Row j (context rows, then the new items) is seen by query i when it is a context row or a
    // new item up to i, and lies in i's sliding window.
    KVW_HD bool sees(int i, int j) const {
        if (j >= a.rows && j - a.rows > i) return false;
        if (a.window <= 0) return true;
        const int32_t key = j < a.rows ? a.context_positions[j] : a.positions[j - a.rows];
        return in_sliding_window(a.positions[i], key, a.window);
    }

    // Element d of KV head g of row j of K (or V).
    KVW_HD float element(bool value, int j, int g, int d) const {
        const int at = g * a.head_dim + d;
        if (j >= a.rows) return (value ? a.v_new : a.k_new)[size_t(j - a.rows) * kv_dim() + at];
        const size_t p = size_t(a.index ? a.index[j] : j);
        const KvType t = value ? a.v_type : a.k_type;
        const float* scales = value ? a.v_scale : a.k_scale;
        const void* row = static_cast<const uint8_t*>(value ? a.v : a.k) +
                          p * size_t(kv_dim()) * size_t(kv_type_bytes(t));
        return kv_decode_value(t, row, scales ? scales + p * size_t(a.n_kv_heads) : nullptr, at,
                               a.head_dim);
    }

    // The scratch of query i, head h (attention_scratch_floats): weights over the rows, then
    // chunk maxima, chunk sums, the max and 1 / sum, then the chunks' partial values.
    KVW_HD int chunks() const { return cuda::attention_chunks(total()); }
    KVW_HD size_t per_query_head() const {
        const size_t c = size_t(chunks());
        return size_t(total()) + 2 * c + 2 + c * size_t(a.head_dim);
    }
    KVW_HD float* weights(int i, int h) const {
        return a.scratch + (size_t(i) * a.n_heads + size_t(h)) * per_query_head();
    }
    KVW_HD float* chunk_max(int i, int h) const { return weights(i, h) + total(); }
    KVW_HD float* chunk_sum(int i, int h) const { return chunk_max(i, h) + chunks(); }
    KVW_HD float* row_max(int i, int h) const { return chunk_sum(i, h) + chunks(); }
    KVW_HD float* inverse_sum(int i, int h) const { return row_max(i, h) + 1; }
    KVW_HD float* partial(int i, int h, int c) const {
        return inverse_sum(i, h) + 1 + size_t(c) * size_t(a.head_dim);
    }

    // Rows query i may see (no later one): [0, rows + i + 1); the chunks holding them.
    KVW_HD int last_row(int i) const { return a.rows + i; }
    KVW_HD int chunks_of(int i) const { return last_row(i) / cuda::kAttentionChunk + 1; }
    // Rows [first, end) of chunk c that query i may see.
    KVW_HD int chunk_first(int c) const { return c * cuda::kAttentionChunk; }
    KVW_HD int chunk_end(int i, int c) const {
        const int end = (c + 1) * cuda::kAttentionChunk;
        return end < last_row(i) + 1 ? end : last_row(i) + 1;
    }
};

// Two values a sum multiplies, loaded together (for_each_loaded).
struct Factors {
    float a, b;
};

// A thread per (query, head, x) with x in [0, count): where t stands.
struct QueryHeadAt {
    int i, h;
    size_t x;
};
KVW_HD QueryHeadAt query_head_at(size_t t, int n_heads, size_t count) {
    return {int(t / count / size_t(n_heads)), int(t / count % size_t(n_heads)), t % count};
}

struct AttentionScores {
    AttentionView v;

    Launch shape() const { return cover(size_t(v.a.n) * v.a.n_heads * size_t(v.total())); }

    KVW_HD void operator()(const At& at) const {
        const size_t total = size_t(v.total());
        if (at.x() >= size_t(v.a.n) * v.a.n_heads * total) return;
        const QueryHeadAt t = query_head_at(at.x(), v.a.n_heads, total);
        const int j = int(t.x);
        if (!v.sees(t.i, j)) return;
        const int hd = v.a.head_dim, g = v.kv_head(t.h);
        const float* q = v.a.q + (size_t(t.i) * v.a.n_heads + size_t(t.h)) * size_t(hd);
        float acc = 0.0f;
        for_each_loaded(
            0, hd,
            [&](int d) {
                return Factors{q[d], v.element(false, j, g, d)};
            },
            [&acc](int, Factors f) { acc += f.a * f.b; });
        v.weights(t.i, t.h)[j] = acc * v.a.scale;
    }
};

// Each chunk's largest score among the rows the query sees (the lowest float when it sees none:
// a query always sees its own row, so the max over the chunks is a score).
struct AttentionChunkMax {
    AttentionView v;

    Launch shape() const { return cover(size_t(v.a.n) * v.a.n_heads * size_t(v.chunks())); }

    KVW_HD void operator()(const At& at) const {
        const size_t chunks = size_t(v.chunks());
        if (at.x() >= size_t(v.a.n) * v.a.n_heads * chunks) return;
        const QueryHeadAt q = query_head_at(at.x(), v.a.n_heads, chunks);
        const int c = int(q.x);
        if (c >= v.chunks_of(q.i)) return;
        const float* p = v.weights(q.i, q.h);
        const int end = v.chunk_end(q.i, c);
        float m = -3.40282347e38f;  // the lowest float
        for_each_loaded(
            v.chunk_first(c), end, [p](int j) { return p[j]; },
            [&](int j, float s) {
                if (v.sees(q.i, j) && s > m) m = s;
            });
        v.chunk_max(q.i, q.h)[c] = m;
    }
};

// The max over the chunks (exact in any order).
struct AttentionRowMax {
    AttentionView v;

    Launch shape() const { return cover(size_t(v.a.n) * v.a.n_heads, 64); }

    KVW_HD void operator()(const At& at) const {
        if (at.x() >= size_t(v.a.n) * v.a.n_heads) return;
        const QueryHeadAt q = query_head_at(at.x(), v.a.n_heads, 1);
        const float* chunk_max = v.chunk_max(q.i, q.h);
        float m = chunk_max[0];
        for (int c = 1; c < v.chunks_of(q.i); ++c)
            if (chunk_max[c] > m) m = chunk_max[c];
        *v.row_max(q.i, q.h) = m;
    }
};

// e_j = exp(score_j − max) in place for the rows seen, and their sum in row order per chunk.
struct AttentionChunkExp {
    AttentionView v;

    Launch shape() const { return cover(size_t(v.a.n) * v.a.n_heads * size_t(v.chunks())); }

    KVW_HD void operator()(const At& at) const {
        const size_t chunks = size_t(v.chunks());
        if (at.x() >= size_t(v.a.n) * v.a.n_heads * chunks) return;
        const QueryHeadAt q = query_head_at(at.x(), v.a.n_heads, chunks);
        const int c = int(q.x);
        if (c >= v.chunks_of(q.i)) return;
        float* p = v.weights(q.i, q.h);
        const float m = *v.row_max(q.i, q.h);
        const int end = v.chunk_end(q.i, c);
        float sum = 0.0f;
        for_each_loaded(
            v.chunk_first(c), end, [p](int j) { return p[j]; },
            [&](int j, float s) {
                if (!v.sees(q.i, j)) return;
                p[j] = exp_nonpositive(s - m);
                sum += p[j];
            });
        v.chunk_sum(q.i, q.h)[c] = sum;
    }
};

// 1 / the sum of the chunk sums, added in chunk order.
struct AttentionRowSum {
    AttentionView v;

    Launch shape() const { return cover(size_t(v.a.n) * v.a.n_heads, 64); }

    KVW_HD void operator()(const At& at) const {
        if (at.x() >= size_t(v.a.n) * v.a.n_heads) return;
        const QueryHeadAt q = query_head_at(at.x(), v.a.n_heads, 1);
        const float* chunk_sum = v.chunk_sum(q.i, q.h);
        float sum = 0.0f;
        for (int c = 0; c < v.chunks_of(q.i); ++c) sum += chunk_sum[c];
        *v.inverse_sum(q.i, q.h) = 1.0f / sum;
    }
};

// p_j = e_j · (1 / sum) for the rows seen.
struct AttentionNormalize {
    AttentionView v;

    Launch shape() const { return cover(size_t(v.a.n) * v.a.n_heads * size_t(v.total())); }

    KVW_HD void operator()(const At& at) const {
        const size_t total = size_t(v.total());
        if (at.x() >= size_t(v.a.n) * v.a.n_heads * total) return;
        const QueryHeadAt q = query_head_at(at.x(), v.a.n_heads, total);
        const int j = int(q.x);
        if (!v.sees(q.i, j)) return;
        v.weights(q.i, q.h)[j] *= *v.inverse_sum(q.i, q.h);
    }
};

// One chunk's share of out[d]: Σ p_j·v_j[d] over its rows seen, in row order.
struct AttentionValueChunks {
    AttentionView v;

    Launch shape() const {
        return cover(size_t(v.a.n) * v.a.n_heads * size_t(v.chunks()) * size_t(v.a.head_dim));
    }

    KVW_HD void operator()(const At& at) const {
        const size_t hd = size_t(v.a.head_dim), per_head = size_t(v.chunks()) * hd;
        if (at.x() >= size_t(v.a.n) * v.a.n_heads * per_head) return;
        const QueryHeadAt q = query_head_at(at.x(), v.a.n_heads, per_head);
        const int c = int(q.x / hd), d = int(q.x % hd);
        if (c >= v.chunks_of(q.i)) return;
        const int g = v.kv_head(q.h);
        const float* p = v.weights(q.i, q.h);
        const int end = v.chunk_end(q.i, c);
        float acc = 0.0f;
        for_each_loaded(
            v.chunk_first(c), end,
            [&](int j) {
                return Factors{p[j], v.element(true, j, g, d)};
            },
            [&](int j, Factors f) {
                if (v.sees(q.i, j)) acc += f.a * f.b;
            });
        v.partial(q.i, q.h, c)[d] = acc;
    }
};

// out[d]: the chunks' shares added in chunk order.
struct AttentionValueFold {
    AttentionView v;

    Launch shape() const { return cover(size_t(v.a.n) * v.a.n_heads * size_t(v.a.head_dim)); }

    KVW_HD void operator()(const At& at) const {
        const size_t hd = size_t(v.a.head_dim);
        if (at.x() >= size_t(v.a.n) * v.a.n_heads * hd) return;
        const QueryHeadAt q = query_head_at(at.x(), v.a.n_heads, hd);
        float acc = 0.0f;
        for (int c = 0; c < v.chunks_of(q.i); ++c) acc += v.partial(q.i, q.h, c)[q.x];
        v.a.out[at.x()] = acc;  // [i][h][d]
    }
};

struct AttentionMass {
    AttentionView v;

    Launch shape() const { return cover(size_t(v.total())); }

    KVW_HD void operator()(const At& at) const {
        const size_t t = at.x();
        if (t >= size_t(v.total())) return;
        const int j = int(t);
        float mass = 0.0f;
        for (int h = 0; h < v.a.n_heads; ++h) {
            float head = 0.0f;
            for (int i = 0; i < v.a.n; ++i)
                if (v.sees(i, j)) head += v.weights(i, h)[j];
            mass += head;
        }
        v.a.mass[j] = mass;
    }
};

// The passes in order, each handed to run (a device launch, or host_launch in the tests).
template <class Run>
void attention_passes(const cuda::DeviceAttention& a, Run&& run) {
    if (a.n_heads <= 0 || a.n_kv_heads <= 0 || a.n_heads % a.n_kv_heads != 0 || a.head_dim <= 0 ||
        a.rows < 0 || a.n < 0)
        throw std::invalid_argument("attention: heads, KV heads or rows out of shape");
    if (a.window > 0 && a.n > 0 && (!a.positions || (a.rows > 0 && !a.context_positions)))
        throw std::invalid_argument("attention: a sliding window needs the rows' positions");
    if (a.n == 0) return;
    const AttentionView view{a};
    run(AttentionScores{view});
    run(AttentionChunkMax{view});
    run(AttentionRowMax{view});
    run(AttentionChunkExp{view});
    run(AttentionRowSum{view});
    run(AttentionNormalize{view});
    run(AttentionValueChunks{view});
    run(AttentionValueFold{view});
    if (a.mass) run(AttentionMass{view});
}

}  // namespace kvw::kern
