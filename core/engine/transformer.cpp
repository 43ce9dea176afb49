#include "core/engine/transformer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/math/kv_quant.h"
#include "core/math/rmsnorm.h"
#include "core/math/rope.h"
#include "core/math/sliding_window.h"
#include "core/math/swiglu.h"

namespace kvw {

namespace {

std::vector<float> norm_to_float(const WeightTensor& w) {
    std::vector<float> out(static_cast<size_t>(w.rows * w.cols));
    weight_row_to_float(w, 0, out.data());
    return out;
}

// An optional vector weight widened to float; empty when the tensor is absent.
std::vector<float> optional_to_float(const WeightTensor& w) {
    return w.data ? norm_to_float(w) : std::vector<float>{};
}

void add_bias(float* x, const std::vector<float>& bias) {
    for (size_t j = 0; j < bias.size(); ++j) x[j] += bias[j];
}

// The context's rows decoded to float32 in logical order, in k and v; ctx itself when it is
// stored as float32 already (no copy on the default path).
LayerContext decoded_context(const LayerContext& ctx, int kv_dim, int groups, std::vector<float>& k,
                             std::vector<float>& v) {
    if (ctx.k.type == KvType::F32 && ctx.v.type == KvType::F32) return ctx;
    const size_t d = size_t(kv_dim);
    k.resize(size_t(ctx.rows) * d);
    v.resize(k.size());
    for (int j = 0; j < ctx.rows; ++j) {
        const size_t p = ctx.physical_row(j);
        kv_decode_row(ctx.k.type, ctx.k.row(p, kv_dim),
                      ctx.k.scale ? ctx.k.scale + p * groups : nullptr, kv_dim, groups,
                      &k[size_t(j) * d]);
        kv_decode_row(ctx.v.type, ctx.v.row(p, kv_dim),
                      ctx.v.scale ? ctx.v.scale + p * groups : nullptr, kv_dim, groups,
                      &v[size_t(j) * d]);
    }
    LayerContext decoded{ctx.rows, {k.data()}, {v.data()}};
    decoded.positions = ctx.positions;
    return decoded;
}

// rows ([n][kv_dim]) as a cache storing them in `t` gives them back: encoded, then decoded.
std::vector<float> stored_values(KvType t, const std::vector<float>& rows, int kv_dim, int groups) {
    std::vector<float> out(rows.size());
    std::vector<uint8_t> code(size_t(kv_dim) * size_t(kv_type_bytes(t)));
    std::vector<float> scales(static_cast<size_t>(groups));
    QuantStats ignored;  // the cache counts them when it stores the rows
    for (size_t at = 0; at < rows.size(); at += size_t(kv_dim)) {
        kv_encode_row(t, &rows[at], kv_dim, groups, code.data(), scales.data(), ignored);
        kv_decode_row(t, code.data(), scales.data(), kv_dim, groups, &out[at]);
    }
    return out;
}

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

}  // namespace

Transformer::Transformer(std::shared_ptr<const Model> model, Backend& backend, int threads,
                         int64_t context_length)
    : model_(std::move(model)),
      backend_(backend),
      rope_(model_->config.rope(context_length > 0 ? context_length
                                                   : int64_t(model_->config.max_context))),
      pool_(std::make_unique<ThreadPool>(threads)) {
    const float attention_factor = model_->config.rope_attention_factor;
    score_scale_ = attention_factor * attention_factor / std::sqrt(float(model_->config.head_dim));
    const ModelWeights& w = model_->weights;
    for (const LayerWeights& l : w.layers) {
        attn_norm_.push_back(norm_to_float(l.attn_norm));
        ffn_norm_.push_back(norm_to_float(l.ffn_norm));
        extras_.push_back({optional_to_float(l.bq), optional_to_float(l.bk),
                           optional_to_float(l.bv), optional_to_float(l.q_norm),
                           optional_to_float(l.k_norm)});
        const ModelConfig& c = model_->config;
        const LayerExtras& ex = extras_.back();
        const bool biases = ex.bq.size() == size_t(c.q_dim()) &&
                            ex.bk.size() == size_t(c.kv_dim()) && ex.bv.size() == ex.bk.size();
        const bool norms =
            ex.q_norm.size() == size_t(c.head_dim) && ex.k_norm.size() == ex.q_norm.size();
        if ((c.qkv_bias && !biases) || (c.qk_norm && !norms))
            throw std::invalid_argument("Transformer: layer " + std::to_string(extras_.size() - 1) +
                                        " lacks the biases or Q/K norms its config asks for");
    }
    output_norm_ = norm_to_float(w.output_norm);
}

std::vector<float> Transformer::token_embedding(int32_t token) const {
    const WeightTensor& table = model_->weights.token_embd;
    if (token < 0 || token >= table.rows)
        throw std::invalid_argument("token_embedding: token " + std::to_string(token) +
                                    " outside the vocabulary of " + std::to_string(table.rows));
    std::vector<float> row(size_t(table.cols));
    weight_row_to_float(table, token, row.data());
    return row;
}

void Transformer::embed(std::span<const Item> items, float* x) const {
    const ModelConfig& cfg = model_->config;
    for (size_t i = 0; i < items.size(); ++i) {
        const Item& item = items[i];
        float* row = x + i * size_t(cfg.n_embd);
        if (item.token >= 0) {
            weight_row_to_float(model_->weights.token_embd, item.token, row);
        } else {
            std::copy(item.embedding.begin(), item.embedding.end(), row);
        }
    }
}

// Streams (query × head) per attention block: enough to fill the kernel's lanes when a group is
// small (one head per K/V head: 32 queries side by side), small enough for the scratch.
constexpr int kAttentionStreams = 32;

// Grouped-query attention of the n new items over the layer's context rows and, causally, over
// each other. q is [n][q_dim]; k_new, v_new are [n][kv_dim]; out is [n][q_dim]. mass, when not
// null, is [n_heads][ctx.rows + n] and receives each head's softmax weights summed over queries.
// The work is one K/V head × a block of queries at a time (core/backend/attention_kernels.h),
// whose numbers do not depend on the block or the thread; with mass, one thread takes all of
// a head's blocks, so that each head's mass is summed in query order.
//
// A layer with a sliding window (window > 0) where some query would see a row `window` or more
// positions back gives each query a block of its own over the rows in its reach; a stream's
// numbers do not depend on the block, so a window that cuts nothing takes the shared path and
// gives the same bits.

void Transformer::attention(const LayerContext& ctx, int n, std::span<const int32_t> positions,
                            int window, const float* q, const float* k_new, const float* v_new,
                            float* out, float* mass) const {
    const ModelConfig& cfg = model_->config;
    const int hd = cfg.head_dim;
    const int q_dim = cfg.q_dim();
    const int kv_dim = cfg.kv_dim();
    const int group = cfg.n_heads / cfg.n_kv_heads;
    const int total = ctx.rows + n;
    const bool windowed = window > 0 && window_cuts(ctx, positions, window);
    // Queries per block; windowed, each query reads its own rows.
    const int block = windowed ? 1 : std::max(1, kAttentionStreams / group);
    const int blocks = (n + block - 1) / block;
    const int64_t work = mass ? cfg.n_kv_heads : int64_t(cfg.n_kv_heads) * blocks;
    const size_t p_stride = size_t(total);

    pool_->parallel_for(work, [&](int64_t w_begin, int64_t w_end) {
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
            const int64_t g = mass ? w : w / blocks;
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
            const int64_t b_begin = mass ? 0 : w % blocks;
            const int64_t b_end = mass ? blocks : b_begin + 1;
            for (int64_t bi = b_begin; bi < b_end; ++bi) {
                const int i0 = int(bi) * block;
                cpu::AttentionBlock b;
                b.q = q + size_t(i0) * q_dim + first_head * hd;
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
                b.scale = score_scale_;
                b.out = out + size_t(i0) * q_dim + first_head * hd;
                b.out_stride = size_t(q_dim);
                b.p = p.data();
                b.p_stride = p_stride;
                b.q_t = q_t.data();
                attention_kernel_.fn(b);
                if (!mass) continue;
                for (int s = 0; s < b.streams(); ++s) {
                    float* m = mass + (first_head + size_t(s % group)) * total;
                    const float* ps = &p[size_t(s) * p_stride];
                    for (int j = 0; j < b.rows_of(s); ++j)
                        m[windowed ? reach[size_t(j)] : j] += ps[j];
                }
            }
        }
    });
}

ForwardOutput Transformer::forward(std::span<const Item> items, std::span<const int32_t> positions,
                                   std::span<const LayerContext> context,
                                   const ForwardOptions& options) const {
    const ModelConfig& cfg = model_->config;
    const ModelWeights& weights = model_->weights;
    const int n = int(items.size());
    if (n == 0) throw std::invalid_argument("forward: no items");
    if (positions.size() != items.size())
        throw std::invalid_argument("forward: " + std::to_string(positions.size()) +
                                    " positions for " + std::to_string(n) + " items");
    if (int(context.size()) != cfg.n_layers)
        throw std::invalid_argument("forward: context for " + std::to_string(context.size()) +
                                    " layers, the model has " + std::to_string(cfg.n_layers));
    for (int i = 0; i < n; ++i) {
        const Item& item = items[i];
        if (item.token >= int64_t(weights.token_embd.rows))
            throw std::invalid_argument("forward: item " + std::to_string(i) + " token " +
                                        std::to_string(item.token) + " outside the vocabulary");
        if (item.token < 0 && int(item.embedding.size()) != cfg.n_embd)
            throw std::invalid_argument("forward: item " + std::to_string(i) + " embedding has " +
                                        std::to_string(item.embedding.size()) + " floats, not " +
                                        std::to_string(cfg.n_embd));
    }
    if (options.logits && (options.logit_items < 1 || options.logit_items > n))
        throw std::invalid_argument("forward: logits for " + std::to_string(options.logit_items) +
                                    " items of " + std::to_string(n));
    for (int l = 0; l < cfg.n_layers; ++l) {
        if (context[l].rows < 0 ||
            (context[l].rows > 0 && (!context[l].k.data || !context[l].v.data)))
            throw std::invalid_argument("forward: bad context view for layer " + std::to_string(l));
        if (cfg.window_of(l) > 0 && context[l].rows > 0 && !context[l].positions)
            throw std::invalid_argument("forward: layer " + std::to_string(l) +
                                        " has a sliding window; its context needs row positions");
    }

    const int D = cfg.n_embd, hd = cfg.head_dim, q_dim = cfg.q_dim(), kv_dim = cfg.kv_dim();
    const int n_ff = cfg.n_ff, half = hd / 2;
    const size_t N = size_t(n);

    // RoPE rotations for each item's position, shared by every head of every layer.
    std::vector<float> rope_cos(N * half), rope_sin(N * half);
    for (int i = 0; i < n; ++i)
        rope_cos_sin(positions[i], hd, rope_, &rope_cos[i * half], &rope_sin[i * half]);

    std::vector<float> x(N * D), xn(N * D), q(N * q_dim), att(N * q_dim), proj(N * D);
    std::vector<float> gate(N * n_ff), up(N * n_ff);
    embed(items, x.data());

    ForwardOutput result;
    result.k.resize(cfg.n_layers);
    result.v.resize(cfg.n_layers);
    if (options.attention_mass) result.attention_mass.resize(cfg.n_layers);

    auto for_items = [&](auto&& fn) {
        pool_->parallel_for(n, [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) fn(size_t(i));
        });
    };

    for (int l = 0; l < cfg.n_layers; ++l) {
        const LayerWeights& lw = weights.layers[l];
        std::vector<float> k(N * kv_dim), v(N * kv_dim), k_buf, v_buf;
        const LayerContext& stored = context[l];
        const LayerContext ctx = decoded_context(stored, kv_dim, cfg.n_kv_heads, k_buf, v_buf);

        for_items([&](size_t i) {
            rmsnorm(&x[i * D], attn_norm_[l].data(), D, cfg.rms_eps, &xn[i * D]);
        });
        backend_.matmul(lw.wq, xn.data(), n, q.data());
        backend_.matmul(lw.wk, xn.data(), n, k.data());
        backend_.matmul(lw.wv, xn.data(), n, v.data());
        // The family switches (docs/ARCHITECTURE.md §2.1); a Llama model skips both.
        const LayerExtras& ex = extras_[size_t(l)];
        if (cfg.qkv_bias) {
            for_items([&](size_t i) {
                add_bias(&q[i * q_dim], ex.bq);
                add_bias(&k[i * kv_dim], ex.bk);
                add_bias(&v[i * kv_dim], ex.bv);
            });
        }
        if (cfg.qk_norm) {
            for_items([&](size_t i) {
                for (int h = 0; h < cfg.n_heads; ++h) {
                    float* head = &q[i * q_dim + h * hd];
                    rmsnorm(head, ex.q_norm.data(), hd, cfg.rms_eps, head);
                }
                for (int h = 0; h < cfg.n_kv_heads; ++h) {
                    float* head = &k[i * kv_dim + h * hd];
                    rmsnorm(head, ex.k_norm.data(), hd, cfg.rms_eps, head);
                }
            });
        }
        for_items([&](size_t i) {
            const float* c = &rope_cos[i * half];
            const float* s = &rope_sin[i * half];
            for (int h = 0; h < cfg.n_heads; ++h)
                rope_apply(&q[i * q_dim + h * hd], hd, c, s, cfg.rope_layout);
            for (int h = 0; h < cfg.n_kv_heads; ++h)
                rope_apply(&k[i * kv_dim + h * hd], hd, c, s, cfg.rope_layout);
        });

        const int total = ctx.rows + n;
        std::vector<float> head_mass(options.attention_mass ? size_t(cfg.n_heads) * total : 0);
        // The new items attend to their K/V as the cache will hold them (this step's own row
        // included), so a row reads the same values in the step that writes it as in every
        // later one: a prefill in one pass equals a token-by-token one, and a rebuilt cache the
        // incremental one. k and v themselves go to the cache, which encodes them the same way.
        const std::vector<float> k_att =
            stored.k_store == KvType::F32
                ? std::vector<float>{}
                : stored_values(stored.k_store, k, kv_dim, cfg.n_kv_heads);
        const std::vector<float> v_att =
            stored.v_store == KvType::F32
                ? std::vector<float>{}
                : stored_values(stored.v_store, v, kv_dim, cfg.n_kv_heads);
        attention(ctx, n, positions, cfg.window_of(l), q.data(),
                  k_att.empty() ? k.data() : k_att.data(), v_att.empty() ? v.data() : v_att.data(),
                  att.data(), options.attention_mass ? head_mass.data() : nullptr);
        if (options.attention_mass) {
            std::vector<float>& mass = result.attention_mass[l];
            mass.assign(size_t(total), 0.0f);
            for (int h = 0; h < cfg.n_heads; ++h)  // heads in order: a fixed summation order
                for (int j = 0; j < total; ++j) mass[j] += head_mass[size_t(h) * total + j];
        }

        backend_.matmul(lw.wo, att.data(), n, proj.data());
        for_items([&](size_t i) {
            for (int d = 0; d < D; ++d) x[i * D + d] += proj[i * D + d];
            rmsnorm(&x[i * D], ffn_norm_[l].data(), D, cfg.rms_eps, &xn[i * D]);
        });
        backend_.matmul(lw.w_gate, xn.data(), n, gate.data());
        backend_.matmul(lw.w_up, xn.data(), n, up.data());
        for_items([&](size_t i) { swiglu(&gate[i * n_ff], &up[i * n_ff], n_ff, &gate[i * n_ff]); });
        backend_.matmul(lw.w_down, gate.data(), n, proj.data());
        for_items([&](size_t i) {
            for (int d = 0; d < D; ++d) x[i * D + d] += proj[i * D + d];
        });

        result.k[l] = std::move(k);
        result.v[l] = std::move(v);
    }

    if (options.logits) {
        // One matmul over the rows asked for: the backend's sums do not depend on how many rows
        // it multiplies, so the last item's logits are the same whatever logit_items is.
        const size_t count = size_t(options.logit_items);
        const float* rows = &x[(N - count) * D];
        std::vector<float> normed(count * D);
        for (size_t i = 0; i < count; ++i)
            rmsnorm(rows + i * D, output_norm_.data(), D, cfg.rms_eps, &normed[i * D]);
        result.logits.resize(count * size_t(weights.output.rows));
        backend_.matmul(weights.output, normed.data(), int(count), result.logits.data());
    }
    return result;
}

}  // namespace kvw
