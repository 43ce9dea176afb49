#include "core/engine/transformer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/math/rope.h"

namespace kvw {

namespace {

// A vector weight (a norm, a bias) widened to float and uploaded; empty when the tensor is
// absent.
BackendArray<float> vector_in(Backend& backend, const WeightTensor& w) {
    if (!w.data) return {};
    std::vector<float> values(static_cast<size_t>(w.rows * w.cols));
    weight_row_to_float(w, 0, values.data());
    return BackendArray<float>(backend, values.data(), values.size());
}

}  // namespace

Transformer::Transformer(std::shared_ptr<const Model> model, Backend& backend,
                         int64_t context_length)
    : model_(std::move(model)),
      backend_(backend),
      rope_(model_->config.rope(context_length > 0 ? context_length
                                                   : int64_t(model_->config.max_context))) {
    const float attention_factor = model_->config.rope_attention_factor;
    score_scale_ = attention_factor * attention_factor / std::sqrt(float(model_->config.head_dim));
    const ModelWeights& w = model_->weights;
    const ModelConfig& c = model_->config;
    for (const LayerWeights& l : w.layers) {
        layers_.push_back({vector_in(backend_, l.attn_norm), vector_in(backend_, l.ffn_norm),
                           vector_in(backend_, l.bq), vector_in(backend_, l.bk),
                           vector_in(backend_, l.bv), vector_in(backend_, l.q_norm),
                           vector_in(backend_, l.k_norm)});
        const LayerVectors& v = layers_.back();
        const bool biases = v.bq.size() == size_t(c.q_dim()) && v.bk.size() == size_t(c.kv_dim()) &&
                            v.bv.size() == v.bk.size();
        const bool norms =
            v.q_norm.size() == size_t(c.head_dim) && v.k_norm.size() == v.q_norm.size();
        if ((c.qkv_bias && !biases) || (c.qk_norm && !norms))
            throw std::invalid_argument("Transformer: layer " + std::to_string(layers_.size() - 1) +
                                        " lacks the biases or Q/K norms its config asks for");
    }
    output_norm_ = vector_in(backend_, w.output_norm);
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
    Backend& be = backend_;

    // RoPE rotations for each item's position, shared by every head of every layer, computed
    // on the host in double (core/math/rope.h) and uploaded.
    std::vector<float> rope_cos(N * half), rope_sin(N * half);
    for (int i = 0; i < n; ++i)
        rope_cos_sin(positions[i], hd, rope_, &rope_cos[i * half], &rope_sin[i * half]);
    const BackendArray<float> cos_table(be, rope_cos.data(), rope_cos.size());
    const BackendArray<float> sin_table(be, rope_sin.data(), rope_sin.size());

    BackendArray<float> x(be, N * D), xn(be, N * D), q(be, N * q_dim), att(be, N * q_dim),
        proj(be, N * D), gate(be, N * n_ff), up(be, N * n_ff), k_att, v_att;
    // Every layer's new K and V stay in the backend (ForwardOutput::k, v: the cache takes them
    // from there). Each layer's attention mass stays there until every layer is done and then
    // comes down straight into the result: a download waits for the device, and one per layer
    // in the loop made the device wait for the host to queue each next layer.
    ForwardOutput result;
    result.k = LayerRows(be, cfg.n_layers, N * size_t(kv_dim));
    result.v = LayerRows(be, cfg.n_layers, N * size_t(kv_dim));
    std::vector<BackendArray<float>> mass_layers;
    mass_layers.reserve(size_t(cfg.n_layers));
    be.embed(weights.token_embd, items, x.data());

    for (int l = 0; l < cfg.n_layers; ++l) {
        const LayerWeights& lw = weights.layers[l];
        const LayerVectors& lv = layers_[size_t(l)];
        const LayerContext& stored = context[l];
        float* const k = result.k.of(l);
        float* const v = result.v.of(l);

        be.rmsnorm(x.data(), lv.attn_norm.data(), n, D, cfg.rms_eps, xn.data());
        be.matmul(lw.wq, xn.data(), n, q.data());
        be.matmul(lw.wk, xn.data(), n, k);
        be.matmul(lw.wv, xn.data(), n, v);
        // The family switches (docs/ARCHITECTURE.md §2.1); a Llama model skips both.
        if (cfg.qkv_bias) {
            be.add_bias(q.data(), lv.bq.data(), n, q_dim);
            be.add_bias(k, lv.bk.data(), n, kv_dim);
            be.add_bias(v, lv.bv.data(), n, kv_dim);
        }
        if (cfg.qk_norm) {  // per head: the heads of a row are consecutive rows of head_dim
            be.rmsnorm(q.data(), lv.q_norm.data(), n * cfg.n_heads, hd, cfg.rms_eps, q.data());
            be.rmsnorm(k, lv.k_norm.data(), n * cfg.n_kv_heads, hd, cfg.rms_eps, k);
        }
        be.rope(q.data(), n, cfg.n_heads, hd, cos_table.data(), sin_table.data(), cfg.rope_layout);
        be.rope(k, n, cfg.n_kv_heads, hd, cos_table.data(), sin_table.data(), cfg.rope_layout);

        // The new items attend to their K/V as the cache will hold them (this step's own row
        // included), so a row reads the same values in the step that writes it as in every
        // later one: a prefill in one pass equals a token-by-token one, and a rebuilt cache the
        // incremental one. k and v themselves go to the cache, which encodes them the same way.
        const float* k_seen = k;
        const float* v_seen = v;
        if (stored.k_store != KvType::F32) {
            if (k_att.empty()) k_att = BackendArray<float>(be, N * kv_dim);
            be.copy(k_att.data(), k, N * kv_dim * sizeof(float));
            be.kv_round_trip(stored.k_store, k_att.data(), n, kv_dim, cfg.n_kv_heads);
            k_seen = k_att.data();
        }
        if (stored.v_store != KvType::F32) {
            if (v_att.empty()) v_att = BackendArray<float>(be, N * kv_dim);
            be.copy(v_att.data(), v, N * kv_dim * sizeof(float));
            be.kv_round_trip(stored.v_store, v_att.data(), n, kv_dim, cfg.n_kv_heads);
            v_seen = v_att.data();
        }
        AttentionCall call;
        call.context = stored;
        call.positions = positions;
        call.n_heads = cfg.n_heads;
        call.n_kv_heads = cfg.n_kv_heads;
        call.head_dim = hd;
        call.window = cfg.window_of(l);
        call.scale = score_scale_;
        call.q = q.data();
        call.k_new = k_seen;
        call.v_new = v_seen;
        call.out = att.data();
        if (options.attention_mass)
            call.mass = mass_layers.emplace_back(be, size_t(stored.rows + n)).data();
        be.attention(call);

        be.matmul(lw.wo, att.data(), n, proj.data());
        be.add(x.data(), proj.data(), N * D);
        be.rmsnorm(x.data(), lv.ffn_norm.data(), n, D, cfg.rms_eps, xn.data());
        be.matmul(lw.w_gate, xn.data(), n, gate.data());
        be.matmul(lw.w_up, xn.data(), n, up.data());
        be.swiglu(gate.data(), up.data(), N * n_ff);
        be.matmul(lw.w_down, gate.data(), n, proj.data());
        be.add(x.data(), proj.data(), N * D);
    }
    if (options.attention_mass) {
        result.attention_mass.resize(size_t(cfg.n_layers));
        for (int l = 0; l < cfg.n_layers; ++l) {
            const BackendArray<float>& mass = mass_layers[size_t(l)];
            result.attention_mass[size_t(l)].resize(mass.size());
            be.download(result.attention_mass[size_t(l)].data(), mass.data(),
                        mass.size() * sizeof(float));
        }
    }

    if (options.logits) {
        // One matmul over the rows asked for: the backend's sums do not depend on how many rows
        // it multiplies, so the last item's logits are the same whatever logit_items is.
        const size_t count = size_t(options.logit_items);
        const size_t vocab = size_t(weights.output.rows);
        be.rmsnorm(x.data() + (N - count) * D, output_norm_.data(), int(count), D, cfg.rms_eps,
                   xn.data());
        BackendArray<float> logits(be, count * vocab);
        be.matmul(weights.output, xn.data(), int(count), logits.data());
        result.logits.resize(count * vocab);
        be.download(result.logits.data(), logits.data(), result.logits.size() * sizeof(float));
    }
    return result;
}

}  // namespace kvw
