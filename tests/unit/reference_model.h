#pragma once
// A float64 reference of the Llama forward pass written with plain loops (its own RMSNorm, RoPE,
// attention and SwiGLU; nothing shared with the engine), and small models built in memory whose
// weights the reference and the engine read alike. Shared by the tests that check the engine's
// numbers (test_forward, test_perplexity).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "core/engine/forward_types.h"
#include "core/model/model.h"
#include "reference_rope.h"

namespace kvw::test {

using Vec = std::vector<double>;

// ---- the float64 reference --------------------------------------------------------------

struct RefLayer {
    Vec attn_norm, wq, wk, wv, wo, ffn_norm, gate, up, down;
};

struct RefModel {
    ModelConfig cfg;
    Vec embd, out_norm, output;
    std::vector<RefLayer> layers;
};

struct RefResult {
    std::vector<Vec> logits;             // [item][vocab]: the prediction after each item
    std::vector<std::vector<Vec>> k, v;  // [layer][item][kv_dim]
    std::vector<Vec> mass;               // [layer][item]
};

inline Vec ref_matvec(const Vec& w, int rows, int cols, const Vec& x) {
    Vec y(rows, 0.0);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) y[r] += w[size_t(r) * cols + c] * x[c];
    return y;
}

inline Vec ref_rmsnorm(const Vec& x, const Vec& w, double eps) {
    double ss = 0.0;
    for (double a : x) ss += a * a;
    const double inv = 1.0 / std::sqrt(ss / double(x.size()) + eps);
    Vec y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * inv * w[i];
    return y;
}

// One causal pass over all items from an empty cache.
inline RefResult reference_forward(const RefModel& m, const std::vector<Vec>& inputs,
                                   const std::vector<int32_t>& positions) {
    const ModelConfig& c = m.cfg;
    const int n = int(inputs.size()), D = c.n_embd, hd = c.head_dim;
    const int qd = c.n_heads * hd, kvd = c.n_kv_heads * hd;
    std::vector<Vec> x = inputs;
    RefResult res;
    for (const RefLayer& L : m.layers) {
        std::vector<Vec> q(n), k(n), v(n);
        for (int i = 0; i < n; ++i) {
            const Vec xn = ref_rmsnorm(x[i], L.attn_norm, c.rms_eps);
            q[i] = ref_matvec(L.wq, qd, D, xn);
            k[i] = ref_matvec(L.wk, kvd, D, xn);
            v[i] = ref_matvec(L.wv, kvd, D, xn);
            for (int h = 0; h < c.n_heads; ++h)
                reference_rope(&q[i][h * hd], hd, positions[i], c.rope_theta, c.rope_layout);
            for (int h = 0; h < c.n_kv_heads; ++h)
                reference_rope(&k[i][h * hd], hd, positions[i], c.rope_theta, c.rope_layout);
        }
        Vec mass(n, 0.0);
        for (int i = 0; i < n; ++i) {
            Vec att(qd, 0.0);
            for (int h = 0; h < c.n_heads; ++h) {
                const int g = h / (c.n_heads / c.n_kv_heads);
                Vec s(i + 1);
                double mx = -1e300;
                for (int j = 0; j <= i; ++j) {
                    double d = 0.0;
                    for (int e = 0; e < hd; ++e) d += q[i][h * hd + e] * k[j][g * hd + e];
                    s[j] = d / std::sqrt(double(hd));
                    mx = std::max(mx, s[j]);
                }
                double sum = 0.0;
                for (double& a : s) sum += (a = std::exp(a - mx));
                for (int j = 0; j <= i; ++j) {
                    const double p = s[j] / sum;
                    mass[j] += p;
                    for (int e = 0; e < hd; ++e) att[h * hd + e] += p * v[j][g * hd + e];
                }
            }
            const Vec o = ref_matvec(L.wo, D, qd, att);
            for (int d = 0; d < D; ++d) x[i][d] += o[d];
            const Vec xn = ref_rmsnorm(x[i], L.ffn_norm, c.rms_eps);
            const Vec g = ref_matvec(L.gate, c.n_ff, D, xn);
            const Vec u = ref_matvec(L.up, c.n_ff, D, xn);
            Vec a(c.n_ff);
            for (int f = 0; f < c.n_ff; ++f) a[f] = g[f] / (1.0 + std::exp(-g[f])) * u[f];
            const Vec down = ref_matvec(L.down, D, c.n_ff, a);
            for (int d = 0; d < D; ++d) x[i][d] += down[d];
        }
        res.k.push_back(k);
        res.v.push_back(v);
        res.mass.push_back(mass);
    }
    for (int i = 0; i < n; ++i)
        res.logits.push_back(
            ref_matvec(m.output, c.vocab_size, D, ref_rmsnorm(x[i], m.out_norm, c.rms_eps)));
    return res;
}

// ---- models built in memory -------------------------------------------------------------

// Weights are drawn on a grid k·2^-shift with |k| < 256, so they are exact in f32, f16 and bf16
// alike and the reference sees precisely the values the engine reads.
inline double grid_value(std::mt19937_64& rng, int lo, int hi, int shift) {
    const int k = lo + int(rng() % uint64_t(hi - lo + 1));
    return std::ldexp(double(k), -shift);
}

// IEEE half bits of a value that is exactly representable as a normal half (or zero).
inline uint16_t exact_half_bits(double v) {
    if (v == 0.0) return 0;
    int e;
    const double m = std::frexp(std::fabs(v), &e);  // |v| = m·2^e, m in [0.5, 1)
    const uint16_t mant = uint16_t((m * 2.0 - 1.0) * 1024.0);
    return uint16_t((v < 0 ? 0x8000 : 0) | ((e - 1 + 15) << 10) | mant);
}

inline WeightTensor make_weight(DType dtype, int rows, int cols, std::mt19937_64& rng, int lo,
                                int hi, int shift, Vec& ref) {
    const size_t count = size_t(rows) * size_t(cols);
    auto storage = std::make_shared<std::vector<uint8_t>>(count * dtype_size(dtype));
    ref.resize(count);
    for (size_t i = 0; i < count; ++i) {
        ref[i] = grid_value(rng, lo, hi, shift);
        const float f = float(ref[i]);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        if (dtype == DType::F32) {
            std::memcpy(storage->data() + 4 * i, &f, 4);
        } else {
            const uint16_t h =
                dtype == DType::BF16 ? uint16_t(bits >> 16) : exact_half_bits(ref[i]);
            std::memcpy(storage->data() + 2 * i, &h, 2);
        }
    }
    WeightTensor w;
    w.dtype = dtype;
    w.rows = rows;
    w.cols = cols;
    w.data = storage->data();
    w.owner = storage;
    return w;
}

struct Built {
    std::shared_ptr<Model> model;
    RefModel ref;
};

inline ModelConfig small_config(int n_kv_heads, RopeLayout layout) {
    ModelConfig c;
    c.n_layers = 2;
    c.n_heads = 4;
    c.n_kv_heads = n_kv_heads;
    c.head_dim = 20;
    c.n_embd = 80;
    c.n_ff = 100;       // not a multiple of 8: exercises the kernels' column tail
    c.vocab_size = 50;  // not a multiple of 8: exercises the row tail
    c.max_context = 64;
    c.rope_theta = 10000.0f;
    c.rms_eps = 1e-5f;
    c.rope_layout = layout;
    return c;
}

inline Built build_model(const ModelConfig& c, DType dtype, uint64_t seed) {
    std::mt19937_64 rng(seed);
    Built b;
    b.ref.cfg = c;
    auto model = std::make_shared<Model>();
    model->config = c;
    ModelWeights& w = model->weights;
    const int D = c.n_embd, qd = c.q_dim(), kvd = c.kv_dim();
    // Linear weights about ±1/sqrt(fan-in), norms around 1, embeddings about ±1.
    auto linear = [&](int rows, int cols, Vec& ref) {
        return make_weight(dtype, rows, cols, rng, -255, 255, 11, ref);
    };
    auto norm = [&](Vec& ref) { return make_weight(dtype, 1, D, rng, 96, 160, 7, ref); };
    w.token_embd = make_weight(dtype, c.vocab_size, D, rng, -255, 255, 8, b.ref.embd);
    w.output_norm = norm(b.ref.out_norm);
    w.output = linear(c.vocab_size, D, b.ref.output);
    for (int l = 0; l < c.n_layers; ++l) {
        LayerWeights lw;
        RefLayer rl;
        lw.attn_norm = norm(rl.attn_norm);
        lw.wq = linear(qd, D, rl.wq);
        lw.wk = linear(kvd, D, rl.wk);
        lw.wv = linear(kvd, D, rl.wv);
        lw.wo = linear(D, qd, rl.wo);
        lw.ffn_norm = norm(rl.ffn_norm);
        lw.w_gate = linear(c.n_ff, D, rl.gate);
        lw.w_up = linear(c.n_ff, D, rl.up);
        lw.w_down = linear(D, c.n_ff, rl.down);
        w.layers.push_back(lw);
        b.ref.layers.push_back(rl);
    }
    b.model = model;
    return b;
}

inline std::vector<Item> token_items(const std::vector<int32_t>& tokens) {
    std::vector<Item> items;
    for (int32_t t : tokens) items.push_back(Item::of_token(t));
    return items;
}

inline std::vector<Vec> token_inputs(const RefModel& m, const std::vector<int32_t>& tokens) {
    std::vector<Vec> in;
    for (int32_t t : tokens)
        in.emplace_back(m.embd.begin() + size_t(t) * m.cfg.n_embd,
                        m.embd.begin() + size_t(t + 1) * m.cfg.n_embd);
    return in;
}

// max |a - b| / max |b|: the error relative to the scale of the reference vector.
template <class A, class B>
inline double relative_error(const A& a, const B& b) {
    double diff = 0.0, scale = 0.0;
    for (size_t i = 0; i < b.size(); ++i) {
        diff = std::max(diff, std::fabs(double(a[i]) - double(b[i])));
        scale = std::max(scale, std::fabs(double(b[i])));
    }
    return diff / scale;
}

}  // namespace kvw::test
