// HostBackend::attention: grouped-query attention of the new items over a layer's context rows
// and, causally, over each other, on the CPU kernels of core/backend/cpu/attention_kernels.h.
#include <algorithm>
#include <vector>

#include "core/backend/cpu/cpu_features.h"
#include "core/backend/cpu/host_backend.h"
#include "core/backend/cpu/widen_halves.h"
#include "core/math/kv_quant.h"
#include "core/math/sliding_window.h"

namespace kvw {

namespace {

// Row j of a stored K or V buffer decoded to float32: f16 and bf16 rows eight values at a time
// where the CPU has AVX2 + F16C (the same bits as kv_decode_row), everything else by
// kv_decode_row.
void decode_row(const KvRows& rows, size_t p, int kv_dim, int groups, float* out) {
#if defined(__x86_64__)
    static const bool avx2 = cpu::cpu_has_avx2();
    if (avx2 && (rows.type == KvType::F16 || rows.type == KvType::BF16)) {
        const auto* in = static_cast<const uint16_t*>(rows.row(p, kv_dim));
        if (rows.type == KvType::F16)
            cpu::widen_f16_avx2(in, kv_dim, out);
        else
            cpu::widen_bf16_avx2(in, kv_dim, out);
        return;
    }
#endif
    kv_decode_row(rows.type, rows.row(p, kv_dim), rows.scale ? rows.scale + p * groups : nullptr,
                  kv_dim, groups, out);
}

}  // namespace

// Rows in parallel: a 4,096-row context of a TinyLlama-shape layer is a million values to widen
// on every layer of every token.
LayerContext HostBackend::decoded_context(const LayerContext& ctx, int kv_dim, int groups,
                                          std::vector<float>& k, std::vector<float>& v) {
    if (ctx.k.type == KvType::F32 && ctx.v.type == KvType::F32) return ctx;
    const size_t d = size_t(kv_dim);
    k.resize(size_t(ctx.rows) * d);
    v.resize(k.size());
    pool_.parallel_for(ctx.rows, [&](int64_t begin, int64_t end) {
        for (int64_t j = begin; j < end; ++j) {
            const size_t p = ctx.physical_row(int(j));
            decode_row(ctx.k, p, kv_dim, groups, &k[size_t(j) * d]);
            decode_row(ctx.v, p, kv_dim, groups, &v[size_t(j) * d]);
        }
    });
    LayerContext decoded{ctx.rows, {k.data()}, {v.data()}};
    decoded.positions = ctx.positions;
    return decoded;
}

namespace {

// Whether a window of `window` positions hides some row from some query: the newest query
// against the oldest row (context rows by ctx.positions, the new items by `positions`).
bool window_cuts(const LayerContext& ctx, std::span<const int32_t> positions, int window) {
    int64_t oldest = *std::min_element(positions.begin(), positions.end());
    const int64_t newest = *std::max_element(positions.begin(), positions.end());
    if (ctx.rows > 0)
        oldest =
            std::min<int64_t>(oldest, *std::min_element(ctx.positions, ctx.positions + ctx.rows));
    return !in_sliding_window(newest, oldest, window);
}

// The rows query i sees under the window, in row order: context rows and the new items up to
// and including itself that are in_sliding_window of it. The query itself is always among them.
void rows_in_window(const LayerContext& ctx, std::span<const int32_t> positions, int window, int i,
                    std::vector<int>& reach) {
    reach.clear();
    const int64_t at = positions[size_t(i)];
    for (int j = 0; j < ctx.rows; ++j)
        if (in_sliding_window(at, ctx.positions[j], window)) reach.push_back(j);
    for (int k = 0; k <= i; ++k)
        if (in_sliding_window(at, positions[size_t(k)], window)) reach.push_back(ctx.rows + k);
}

// Streams (query × head) per attention block: enough to fill the kernel's lanes when a group is
// small (one head per K/V head: 32 queries side by side), small enough for the scratch.
constexpr int kAttentionStreams = 32;

}  // namespace

// The work is one K/V head × a block of queries at a time (core/backend/cpu/attention_kernels.h),
// whose numbers do not depend on the block or the thread; with mass, one thread takes all of
// a head's blocks, so that each head's mass is summed in query order, and the heads are then
// summed in head order.
//
// A layer with a sliding window (window > 0) where some query would see a row `window` or more
// positions back gives each query a block of its own over the rows in its reach; a stream's
// numbers do not depend on the block, so a window that cuts nothing takes the shared path and
// gives the same bits.
void HostBackend::attention(const AttentionCall& call) {
    check_context_memory(call.context, host_row_device(), name());
    const int n = call.n();
    const int hd = call.head_dim;
    const int q_dim = call.n_heads * hd;
    const int kv_dim = call.n_kv_heads * hd;
    const int group = call.n_heads / call.n_kv_heads;
    // Kept per calling thread across calls: fresh buffers were page-faulted on every layer of
    // every token (a 4,096-row f16 context: 8 MB a layer).
    thread_local std::vector<float> k_buf, v_buf;
    const LayerContext ctx = decoded_context(call.context, kv_dim, call.n_kv_heads, k_buf, v_buf);
    const int total = ctx.rows + n;
    const std::span<const int32_t> positions = call.positions;
    const int window = call.window;
    const bool windowed = window > 0 && window_cuts(ctx, positions, window);
    // Queries per block; windowed, each query reads its own rows.
    const int block = windowed ? 1 : std::max(1, kAttentionStreams / group);
    const int blocks = (n + block - 1) / block;
    const bool with_mass = call.mass != nullptr;
    const int64_t work = with_mass ? call.n_kv_heads : int64_t(call.n_kv_heads) * blocks;
    const size_t p_stride = size_t(total);
    std::vector<float> head_mass(with_mass ? size_t(call.n_heads) * total : 0);
    const float* k_new = call.k_new;
    const float* v_new = call.v_new;

    pool_.parallel_for(work, [&](int64_t w_begin, int64_t w_end) {
        // Scratch kept per thread across calls: fresh buffers of this size are mmapped and
        // page-faulted on every layer of every token (perf showed it at 4k rows).
        thread_local std::vector<float> q_t, p;
        thread_local std::vector<const float*> k_rows, v_rows, k_reach, v_reach;
        thread_local std::vector<int> reach;  // windowed: the rows query i sees, in row order
        q_t.resize(size_t(cpu::attention_lanes(block * group)) * size_t(hd));
        p.resize(size_t(block) * group * p_stride);
        k_rows.resize(static_cast<size_t>(total));
        v_rows.resize(static_cast<size_t>(total));
        int64_t rows_of_head = -1;
        for (int64_t w = w_begin; w < w_end; ++w) {
            const int64_t g = with_mass ? w : w / blocks;
            if (g != rows_of_head) {
                const size_t kv_off = size_t(g) * hd;
                for (int j = 0; j < total; ++j) {
                    const bool cached = j < ctx.rows;
                    k_rows[size_t(j)] = cached ? ctx.k.f32() + ctx.physical_row(j) * kv_dim + kv_off
                                               : k_new + size_t(j - ctx.rows) * kv_dim + kv_off;
                    v_rows[size_t(j)] = cached ? ctx.v.f32() + ctx.physical_row(j) * kv_dim + kv_off
                                               : v_new + size_t(j - ctx.rows) * kv_dim + kv_off;
                }
                rows_of_head = g;
            }
            const size_t first_head = size_t(g) * group;
            const int64_t b_begin = with_mass ? 0 : w % blocks;
            const int64_t b_end = with_mass ? blocks : b_begin + 1;
            for (int64_t bi = b_begin; bi < b_end; ++bi) {
                const int i0 = int(bi) * block;
                cpu::AttentionBlock b;
                b.q = call.q + size_t(i0) * q_dim + first_head * hd;
                b.q_stride = size_t(q_dim);
                b.queries = std::min(block, n - i0);
                b.group = group;
                b.hd = hd;
                b.first_len = ctx.rows + i0 + 1;
                b.k_rows = k_rows.data();
                b.v_rows = v_rows.data();
                if (windowed) {
                    rows_in_window(ctx, positions, window, i0, reach);
                    k_reach.resize(reach.size());
                    v_reach.resize(reach.size());
                    for (size_t t = 0; t < reach.size(); ++t) {
                        k_reach[t] = k_rows[size_t(reach[t])];
                        v_reach[t] = v_rows[size_t(reach[t])];
                    }
                    b.first_len = int(reach.size());
                    b.k_rows = k_reach.data();
                    b.v_rows = v_reach.data();
                }
                b.scale = call.scale;
                b.out = call.out + size_t(i0) * q_dim + first_head * hd;
                b.out_stride = size_t(q_dim);
                b.p = p.data();
                b.p_stride = p_stride;
                b.q_t = q_t.data();
                attention_kernel_.fn(b);
                if (!with_mass) continue;
                for (int s = 0; s < b.streams(); ++s) {
                    float* m = head_mass.data() + (first_head + size_t(s % group)) * total;
                    const float* ps = &p[size_t(s) * p_stride];
                    for (int j = 0; j < b.rows_of(s); ++j)
                        m[windowed ? reach[size_t(j)] : j] += ps[j];
                }
            }
        }
    });
    if (!with_mass) return;
    std::fill(call.mass, call.mass + total, 0.0f);
    for (int h = 0; h < call.n_heads; ++h)  // heads in order: a fixed summation order
        for (int j = 0; j < total; ++j) call.mass[j] += head_mass[size_t(h) * total + j];
}

}  // namespace kvw
