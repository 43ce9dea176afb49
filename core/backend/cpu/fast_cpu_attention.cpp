// FastCpuBackend::attention: every query's rows in chunks of cpu::kFastAttentionChunkRows, each
// chunk read once for all the query's heads (core/backend/cpu/fast_attention.h), the chunks
// spread over the pool and then merged per query and head.
#include <algorithm>
#include <vector>

#include "core/backend/cpu/fast_cpu_backend.h"

namespace kvw {

namespace {

// Floats of chunk results and weights held at once: queries are taken in blocks that fit, so a
// long prefill does not hold every query's chunks (the blocks do not change a bit).
constexpr size_t kBlockFloats = size_t(8) << 20;

// Buffers kept per calling thread across calls (fresh ones would be page-faulted on every layer
// of every token).
struct AttentionScratch {
    std::vector<float> k, v;  // an Int8 / FP8 context decoded
    std::vector<const void*> k_rows, v_rows;
    std::vector<float> results, weights, p;
};

int chunks_of(int rows) {
    return (rows + cpu::kFastAttentionChunkRows - 1) / cpu::kFastAttentionChunkRows;
}

}  // namespace

// Layers with a sliding window, and heads larger than the kernels take, go the reference's
// way: which way a layer goes depends on the layer alone, never on the batch, so a batch split
// keeps the bits.
void FastCpuBackend::attention(const AttentionCall& call) {
    if (!fast_attention_ || call.window > 0 || call.head_dim > cpu::kFastAttentionMaxHeadDim)
        return HostBackend::attention(call);
    const int n = call.n();
    const int hd = call.head_dim;
    const int heads = call.n_heads;
    const int q_dim = heads * hd;
    const int kv_dim = call.n_kv_heads * hd;
    const bool direct = cpu::fast_attention_reads(call.context.k.type) &&
                        cpu::fast_attention_reads(call.context.v.type);
    // The pool's threads below must see the calling thread's scratch, not their own.
    thread_local AttentionScratch per_caller;
    AttentionScratch& s = per_caller;
    // Int8 and FP8 rows (and a context mixing them with another type) are decoded first.
    const LayerContext ctx =
        direct ? call.context : decoded_context(call.context, kv_dim, call.n_kv_heads, s.k, s.v);
    const int total = ctx.rows + n;

    std::vector<const void*>& k_rows = s.k_rows;
    std::vector<const void*>& v_rows = s.v_rows;
    k_rows.resize(size_t(total));
    v_rows.resize(size_t(total));
    for (int j = 0; j < total; ++j) {
        const bool cached = j < ctx.rows;
        k_rows[size_t(j)] = cached ? ctx.k.row(ctx.physical_row(j), kv_dim)
                                   : call.k_new + size_t(j - ctx.rows) * kv_dim;
        v_rows[size_t(j)] = cached ? ctx.v.row(ctx.physical_row(j), kv_dim)
                                   : call.v_new + size_t(j - ctx.rows) * kv_dim;
    }

    const bool with_mass = call.mass != nullptr;
    const int max_chunks = chunks_of(total);
    // Per query: each chunk's m, s and o per head, its weights, and with mass every head's p.
    const size_t chunk_floats = size_t(heads) * size_t(hd + 2);
    const size_t query_floats = size_t(max_chunks) * (chunk_floats + size_t(heads)) +
                                (with_mass ? size_t(heads) * size_t(total) : 0);
    const int block = int(std::clamp<size_t>(kBlockFloats / query_floats, 1, size_t(n)));
    std::vector<float>& results = s.results;
    std::vector<float>& weights = s.weights;
    std::vector<float>& p = s.p;
    results.resize(size_t(block) * max_chunks * chunk_floats);
    weights.resize(size_t(block) * max_chunks * heads);
    p.resize(with_mass ? size_t(block) * heads * total : 0);
    if (with_mass) std::fill(call.mass, call.mass + total, 0.0f);
    // Chunk c of query i (i − i0 = qi) keeps m and s at m_of(qi, c), o at o_of(qi, c).
    const size_t query_results = size_t(max_chunks) * chunk_floats;
    const auto m_of = [&](int qi, int c) {
        return results.data() + size_t(qi) * query_results + size_t(c) * heads * 2;
    };
    const auto o_of = [&](int qi, int c) {
        return results.data() + size_t(qi) * query_results + size_t(max_chunks) * heads * 2 +
               size_t(c) * heads * hd;
    };

    for (int i0 = 0; i0 < n; i0 += block) {
        const int queries = std::min(block, n - i0);
        // Chunk-major, so that a thread's consecutive units share a chunk's rows in cache.
        const int64_t units = int64_t(chunks_of(ctx.rows + i0 + queries)) * queries;
        pool_.parallel_for(units, [&](int64_t u_begin, int64_t u_end) {
            thread_local std::vector<float> e;
            e.resize(size_t(heads) * cpu::kFastAttentionChunkRows);
            for (int64_t u = u_begin; u < u_end; ++u) {
                const int c = int(u / queries), qi = int(u % queries);
                const int rows = ctx.rows + i0 + qi + 1;
                const int r0 = c * cpu::kFastAttentionChunkRows;
                if (r0 >= rows) continue;
                cpu::FastAttentionChunk chunk;
                chunk.q = call.q + size_t(i0 + qi) * q_dim;
                chunk.n_heads = heads;
                chunk.group = heads / call.n_kv_heads;
                chunk.hd = hd;
                chunk.kv_dim = kv_dim;
                chunk.k_rows = k_rows.data() + r0;
                chunk.v_rows = v_rows.data() + r0;
                chunk.rows = std::min(cpu::kFastAttentionChunkRows, rows - r0);
                chunk.stored_rows = std::clamp(ctx.rows - r0, 0, chunk.rows);
                chunk.k_type = ctx.k.type;
                chunk.v_type = ctx.v.type;
                chunk.scale = call.scale;
                chunk.m = m_of(qi, c);
                chunk.s = chunk.m + heads;
                chunk.o = o_of(qi, c);
                chunk.e = with_mass ? p.data() + size_t(qi) * heads * total + r0 : e.data();
                chunk.e_stride = with_mass ? size_t(total) : size_t(cpu::kFastAttentionChunkRows);
                fast_attention_->chunk(chunk);
            }
        });
        pool_.parallel_for(int64_t(queries) * heads, [&](int64_t begin, int64_t end) {
            for (int64_t t = begin; t < end; ++t) {
                const int qi = int(t / heads), h = int(t % heads);
                const int rows = ctx.rows + i0 + qi + 1;
                float* w = weights.data() + (size_t(qi) * heads + h) * max_chunks;
                fast_attention_->merge(chunks_of(rows), m_of(qi, 0) + h, m_of(qi, 0) + heads + h,
                                       size_t(heads) * 2, o_of(qi, 0) + size_t(h) * hd,
                                       size_t(heads) * hd, hd,
                                       call.out + size_t(i0 + qi) * q_dim + size_t(h) * hd, w);
                if (!with_mass) continue;
                float* ph = p.data() + (size_t(qi) * heads + h) * total;
                for (int j = 0; j < rows; ++j) ph[j] *= w[j / cpu::kFastAttentionChunkRows];
            }
        });
        if (!with_mass) continue;
        // Per row: queries in order, each query's heads in order.
        pool_.parallel_for(total, [&](int64_t begin, int64_t end) {
            for (int64_t j = begin; j < end; ++j)
                for (int qi = 0; qi < queries; ++qi) {
                    if (j >= ctx.rows + i0 + qi + 1) continue;
                    for (int h = 0; h < heads; ++h)
                        call.mass[j] += p[(size_t(qi) * heads + h) * total + size_t(j)];
                }
        });
    }
}

}  // namespace kvw
