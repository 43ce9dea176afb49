// FastCpuBackend::attention: every query's rows in chunks of cpu::kFastAttentionChunkRows, each
// chunk read once for every head of a run of queries (core/backend/cpu/fast_attention.h), then
// merged per query and head.
#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "core/backend/cpu/fast_cpu_backend.h"

namespace kvw {

namespace {

constexpr int kChunkRows = cpu::kFastAttentionChunkRows;

// Floats of chunk results and weights held at once: queries are taken in blocks that fit, so a
// long prefill does not hold every query's chunks (the blocks do not change a bit).
constexpr size_t kBlockFloats = size_t(8) << 20;

// Queries of one kernel call: its transposed K rows serve them all; more would make the units
// of a short prefill too few to share among the threads. (A prefill of 512 over 1,024 rows, 4
// layers, 2 threads, Zen 4: 4 queries 123 ms, 8 117–122, 16 107–111, 32 110–115.)
constexpr int kQueriesPerCall = 16;

int chunks_of(int rows) { return (rows + kChunkRows - 1) / kChunkRows; }

// Where rows lie: row j's K at k[j], V at v[j], from a chunk's (or the context's) first row.
struct RowPointers {
    const void* const* k = nullptr;
    const void* const* v = nullptr;
};

// Row j's K and V: the context's rows where they are stored, then the new items'.
struct RowAddresses {
    LayerContext ctx;
    const AttentionCall& call;
    int kv_dim = 0;

    int total() const { return ctx.rows + call.n(); }

    // Rows [j0, j1) into k[0 … j1 − j0), v[…]. The context is copied first: read through the
    // member, whose fields the stores might have changed for all the compiler knew, the loop
    // reloaded them on every row (4 % of a decode's attention at 4,096 rows).
    void fill(int j0, int j1, const void** k, const void** v) const {
        const LayerContext c = ctx;
        const int stored_end = std::min(j1, c.rows);
        for (int j = j0; j < stored_end; ++j) {
            k[j - j0] = c.k.row(c.physical_row(j), kv_dim);
            v[j - j0] = c.v.row(c.physical_row(j), kv_dim);
        }
        for (int j = std::max(j0, c.rows); j < j1; ++j) {
            k[j - j0] = call.k_new + size_t(j - c.rows) * kv_dim;
            v[j - j0] = call.v_new + size_t(j - c.rows) * kv_dim;
        }
    }
};

// A walker's rows (ThreadPool::parallel_walks) of the chunk it runs and of the one it runs next,
// each addressed once: the next becomes the current. Addressed by the walker that needs them,
// in its first-level cache, rather than every row of the context up front by the calling thread
// (at 4,096 rows 8 µs a layer, mostly misses on the stores).
class WalkRows {
public:
    RowPointers now(int c, const RowAddresses& at) {
        if (chunk_[1 - now_] == c)
            now_ = 1 - now_;
        else if (chunk_[now_] != c)
            fill(now_, c, at);
        return rows(now_);
    }
    RowPointers next(int c, const RowAddresses& at) {
        if (c == chunk_[now_]) return rows(now_);
        if (chunk_[1 - now_] != c) fill(1 - now_, c, at);
        return rows(1 - now_);
    }

private:
    void fill(int slot, int c, const RowAddresses& at) {
        const int r0 = c * kChunkRows;
        at.fill(r0, std::min(at.total(), r0 + kChunkRows), k_[slot], v_[slot]);
        chunk_[slot] = c;
    }
    RowPointers rows(int slot) const { return {k_[slot], v_[slot]}; }

    const void* k_[2][kChunkRows];
    const void* v_[2][kChunkRows];
    int chunk_[2] = {-1, -1};
    int now_ = 0;
};

// Buffers kept per calling thread across calls (fresh ones would be page-faulted on every layer
// of every token).
struct AttentionScratch {
    std::vector<float> k, v;                  // an Int8 / FP8 context decoded
    std::vector<const void*> k_rows, v_rows;  // every row's, for runs of queries
    std::vector<WalkRows> walks;              // per walker, for chunks
    std::vector<float> results, weights, p;
};

// A pool thread's scratch for its kernel calls: FastAttentionChunk::k_scratch (64-byte aligned)
// and, without attention mass, the calls' e_j.
struct ChunkScratch {
    std::vector<float> k_scratch_store, e;
    float* k_scratch = nullptr;

    void reserve(int kv_dim, int hd, int heads, bool with_mass) {
        const size_t floats = cpu::fast_attention_scratch_floats(kv_dim, hd);
        k_scratch_store.resize(floats + 16);
        void* p = k_scratch_store.data();
        size_t space = k_scratch_store.size() * sizeof(float);
        k_scratch = static_cast<float*>(std::align(64, floats * sizeof(float), p, space));
        e.resize(with_mass ? 0 : size_t(kQueriesPerCall) * heads * kChunkRows);
    }
};

// One call's queries [i0, i0 + queries) of a block: where each chunk's results go, one kernel
// call, one merge.
struct QueryBlock {
    const AttentionCall& call;
    const LayerContext& ctx;
    const cpu::FastAttentionKernel& kernel;
    AttentionScratch& s;  // the rows' pointers, the results
    int i0 = 0, queries = 0;
    // FastAttentionChunk::queries_id of a chunk call's queries [b, e): first_queries_id + b
    // (b decides e: the calls' runs of queries never overlap differently within a block).
    uint64_t first_queries_id = 0;

    int heads() const { return call.n_heads; }
    int hd() const { return call.head_dim; }
    int q_dim() const { return call.n_heads * call.head_dim; }
    int total() const { return ctx.rows + call.n(); }
    int max_chunks() const { return chunks_of(total()); }
    bool with_mass() const { return call.mass != nullptr; }
    // Rows query qi of the block attends.
    int rows_of(int qi) const { return ctx.rows + i0 + qi + 1; }
    // The first query of the block that attends row j, and chunk c.
    int first_query_of_row(int j) const { return std::max(0, j - ctx.rows - i0); }
    int first_query_of(int c) const { return first_query_of_row(c * kChunkRows); }

    // Per query: each chunk's m and s (heads each), then each chunk's o (heads · hd).
    size_t query_results() const { return size_t(max_chunks()) * heads() * (hd() + 2); }
    float* m_of(int qi, int c) const {
        return s.results.data() + size_t(qi) * query_results() + size_t(c) * heads() * 2;
    }
    float* o_of(int qi, int c) const {
        return s.results.data() + size_t(qi) * query_results() +
               size_t(max_chunks()) * heads() * 2 + size_t(c) * heads() * hd();
    }
    float* p_of(int qi, int h) const { return s.p.data() + (size_t(qi) * heads() + h) * total(); }

    // Chunk c (its rows at `rows`) for the queries [b, e) of the block; the calling thread's
    // next unit reads chunk `next` (-1: none, or the same chunk, whose rows are then in cache),
    // its rows at next_rows.
    void chunk(int c, int b, int e, RowPointers rows, int next, RowPointers next_rows,
               ChunkScratch& scratch) const {
        const int r0 = c * kChunkRows;
        cpu::FastAttentionChunk k;
        k.q = call.q + size_t(i0 + b) * q_dim();
        k.q_stride = size_t(q_dim());
        k.n_queries = e - b;
        k.n_heads = heads();
        k.group = heads() / call.n_kv_heads;
        k.hd = hd();
        k.kv_dim = call.n_kv_heads * hd();
        k.k_rows = rows.k;
        k.v_rows = rows.v;
        k.stored_rows = std::clamp(ctx.rows - r0, 0, kChunkRows);
        k.k_type = ctx.k.type;
        k.v_type = ctx.v.type;
        k.first_rows = rows_of(b) - r0;
        k.scale = call.scale;
        k.m = m_of(b, c);
        k.s = k.m + heads();
        k.o = o_of(b, c);
        k.result_stride = query_results();
        if (with_mass()) {
            k.e = p_of(b, 0) + r0;
            k.e_query_stride = size_t(heads()) * total();
            k.e_head_stride = size_t(total());
        } else {
            k.e = scratch.e.data();
            k.e_query_stride = size_t(heads()) * kChunkRows;
            k.e_head_stride = size_t(kChunkRows);
        }
        if (next >= 0 && next != c) {
            const int n0 = next * kChunkRows;
            k.next_k_rows = next_rows.k;
            k.next_v_rows = next_rows.v;
            k.next_rows = std::clamp(total() - n0, 0, kChunkRows);
            k.next_stored_rows = std::clamp(ctx.rows - n0, 0, kChunkRows);
        }
        k.k_scratch = scratch.k_scratch;
        k.queries_id = first_queries_id + uint64_t(b);
        kernel.chunk(k);
    }

    // Query qi's head h from its chunks' results; leaves its chunks' weights w_c (by which
    // chunk c's e_j become the rows' p_j) in chunk_weights(qi, h).
    void merge(int qi, int h) const {
        kernel.merge(chunks_of(rows_of(qi)), m_of(qi, 0) + h, m_of(qi, 0) + heads() + h,
                     size_t(heads()) * 2, o_of(qi, 0) + size_t(h) * hd(), size_t(heads()) * hd(),
                     hd(), call.out + size_t(i0 + qi) * q_dim() + size_t(h) * hd(),
                     chunk_weights(qi, h));
    }
    float* chunk_weights(int qi, int h) const {
        return s.weights.data() + (size_t(qi) * heads() + h) * max_chunks();
    }

    // mass[j] += p_j = e_j · w_c for rows [begin, end), query after query, each query's heads
    // in order, each p_j rounded before it is added (as a product stored first). Query and head
    // outermost, so that each adds a chunk's run of consecutive rows; nothing stores the p_j.
    // (A row at a time, after a pass that stored every p_j, read a float from each head's rows:
    // 4,096 rows, 32 heads, 22 layers, two threads, Zen 4, alternated, the decode's attention
    // with mass took 14.2–14.8 ms, then 12.8–13.0; without mass it was 9.5.)
    void add_mass(int64_t begin, int64_t end) const {
        for (int qi = 0; qi < queries; ++qi) {
            const int64_t stop = std::min<int64_t>(end, rows_of(qi));
            for (int h = 0; h < heads(); ++h) {
                const float* p = p_of(qi, h);
                const float* w = chunk_weights(qi, h);
                for (int64_t j0 = begin; j0 < stop;) {
                    const int64_t c = j0 / kChunkRows;
                    const int64_t j1 = std::min<int64_t>(stop, (c + 1) * kChunkRows);
                    kernel.add_weighted(call.mass + j0, p + j0, w[c], int(j1 - j0));
                    j0 = j1;
                }
            }
        }
    }
};

}  // namespace

// Layers with a sliding window go the reference's way: which way a layer goes depends on the
// layer alone, never on the batch, so a batch split keeps the bits.
void FastCpuBackend::attention(const AttentionCall& call) {
    check_context_memory(call.context, host_row_device(), name());
    if (call.window > 0) return HostBackend::attention(call);
    const int n = call.n();
    const int heads = call.n_heads;
    const int kv_dim = call.n_kv_heads * call.head_dim;
    const bool direct = cpu::fast_attention_reads(call.context.k.type) &&
                        cpu::fast_attention_reads(call.context.v.type);
    // The pool's threads below must see the calling thread's scratch, not their own.
    thread_local AttentionScratch per_caller;
    AttentionScratch& s = per_caller;
    // Int8 and FP8 rows (and a context mixing them with another type) are decoded first.
    const LayerContext ctx =
        direct ? call.context : decoded_context(call.context, kv_dim, call.n_kv_heads, s.k, s.v);
    const int total = ctx.rows + n;

    const RowAddresses addresses{ctx, call, kv_dim};
    QueryBlock qb{call, ctx, *fast_attention_, s};
    const bool with_mass = qb.with_mass();
    const int max_chunks = qb.max_chunks();
    // Per query: its chunk results, its weights, and with mass every head's p.
    const size_t query_floats = qb.query_results() + size_t(max_chunks) * heads +
                                (with_mass ? size_t(heads) * size_t(total) : 0);
    const int block = int(std::clamp<size_t>(kBlockFloats / query_floats, 1, size_t(n)));
    s.results.resize(size_t(block) * qb.query_results());
    s.weights.resize(size_t(block) * max_chunks * heads);
    s.p.resize(with_mass ? size_t(block) * heads * total : 0);
    if (with_mass) std::fill(call.mass, call.mass + total, 0.0f);

    // Every block's ids its own, over every call of every backend.
    static std::atomic<uint64_t> next_queries_id{1};
    for (qb.i0 = 0; qb.i0 < n; qb.i0 += block) {
        qb.queries = std::min(block, n - qb.i0);
        qb.first_queries_id = next_queries_id.fetch_add(uint64_t(qb.queries));
        const int runs = (qb.queries + kQueriesPerCall - 1) / kQueriesPerCall;
        if (runs >= 2 * pool_.size()) {
            // Enough queries for every thread: a unit is a run of queries, every chunk it
            // reaches then its merges, so its chunk results are still in cache when merged.
            s.k_rows.resize(size_t(total));
            s.v_rows.resize(size_t(total));
            addresses.fill(0, total, s.k_rows.data(), s.v_rows.data());
            const auto rows_of_chunk = [&](int c) {
                return c < 0 ? RowPointers{}
                             : RowPointers{s.k_rows.data() + size_t(c) * kChunkRows,
                                           s.v_rows.data() + size_t(c) * kChunkRows};
            };
            pool_.parallel_for(runs, [&](int64_t begin, int64_t end) {
                thread_local ChunkScratch scratch;
                scratch.reserve(kv_dim, call.head_dim, heads, with_mass);
                for (int64_t r = begin; r < end; ++r) {
                    const int b = int(r) * kQueriesPerCall;
                    const int e = std::min(qb.queries, b + kQueriesPerCall);
                    const int chunks = chunks_of(qb.rows_of(e - 1));
                    for (int c = 0; c < chunks; ++c) {
                        const int next = c + 1 < chunks ? c + 1 : -1;
                        qb.chunk(c, std::max(b, qb.first_query_of(c)), e, rows_of_chunk(c), next,
                                 rows_of_chunk(next), scratch);
                    }
                    for (int qi = b; qi < e; ++qi)
                        for (int h = 0; h < heads; ++h) qb.merge(qi, h);
                }
            });
        } else {
            // A decode or a short prefill: units are chunks (each with a run of queries),
            // chunk-major, so that a walker's consecutive units share a chunk's rows in cache;
            // walked (the threads' memory is not always as quick: at 4,096 rows one thread
            // finished its half of the chunks 14 µs a layer after the other in some runs); then
            // the merges.
            struct Unit {
                int c, b, e;
            };
            std::vector<Unit> units;
            for (int c = 0; c < chunks_of(qb.rows_of(qb.queries - 1)); ++c)
                for (int b = qb.first_query_of(c); b < qb.queries; b += kQueriesPerCall)
                    units.push_back({c, b, std::min(qb.queries, b + kQueriesPerCall)});
            s.walks.assign(size_t(pool_.size()), WalkRows{});
            pool_.parallel_walks(int64_t(units.size()), [&](int walker, int64_t u, int64_t next) {
                thread_local ChunkScratch scratch;
                scratch.reserve(kv_dim, call.head_dim, heads, with_mass);
                WalkRows& rows = s.walks[size_t(walker)];
                const Unit& unit = units[size_t(u)];
                const int next_c = next >= 0 ? units[size_t(next)].c : -1;
                const RowPointers now = rows.now(unit.c, addresses);
                qb.chunk(unit.c, unit.b, unit.e, now, next_c,
                         next_c >= 0 ? rows.next(next_c, addresses) : RowPointers{}, scratch);
            });
            pool_.parallel_for(int64_t(qb.queries) * heads, [&](int64_t begin, int64_t end) {
                for (int64_t t = begin; t < end; ++t) qb.merge(int(t / heads), int(t % heads));
            });
        }
        if (!with_mass) continue;
        pool_.parallel_for(total, [&](int64_t begin, int64_t end) { qb.add_mass(begin, end); });
    }
}

}  // namespace kvw
