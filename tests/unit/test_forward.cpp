// The transformer forward pass against a float64 reference written here with plain loops (its
// own RMSNorm, RoPE, attention and SwiGLU; nothing shared with the engine), on small models
// built in memory with random weights.
#include <QtTest>

#include "reference_rope.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/backend/cpu_backend.h"
#include "core/engine/transformer.h"

using namespace kvw;

Q_DECLARE_METATYPE(kvw::DType)
Q_DECLARE_METATYPE(kvw::RopeLayout)

namespace {

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
    Vec logits;
    std::vector<std::vector<Vec>> k, v;  // [layer][item][kv_dim]
    std::vector<Vec> mass;               // [layer][item]
};

Vec ref_matvec(const Vec& w, int rows, int cols, const Vec& x) {
    Vec y(rows, 0.0);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) y[r] += w[size_t(r) * cols + c] * x[c];
    return y;
}

Vec ref_rmsnorm(const Vec& x, const Vec& w, double eps) {
    double ss = 0.0;
    for (double a : x) ss += a * a;
    const double inv = 1.0 / std::sqrt(ss / double(x.size()) + eps);
    Vec y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * inv * w[i];
    return y;
}


// One causal pass over all items from an empty cache.
RefResult reference_forward(const RefModel& m, const std::vector<Vec>& inputs,
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
                kvw::test::reference_rope(&q[i][h * hd], hd, positions[i], c.rope_theta, c.rope_layout);
            for (int h = 0; h < c.n_kv_heads; ++h)
                kvw::test::reference_rope(&k[i][h * hd], hd, positions[i], c.rope_theta, c.rope_layout);
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
    res.logits = ref_matvec(m.output, c.vocab_size, D,
                            ref_rmsnorm(x[n - 1], m.out_norm, c.rms_eps));
    return res;
}

// ---- models built in memory -------------------------------------------------------------

// Weights are drawn on a grid k·2^-shift with |k| < 256, so they are exact in f32, f16 and bf16
// alike and the reference sees precisely the values the engine reads.
double grid_value(std::mt19937_64& rng, int lo, int hi, int shift) {
    const int k = lo + int(rng() % uint64_t(hi - lo + 1));
    return std::ldexp(double(k), -shift);
}

// IEEE half bits of a value that is exactly representable as a normal half (or zero).
uint16_t exact_half_bits(double v) {
    if (v == 0.0) return 0;
    int e;
    const double m = std::frexp(std::fabs(v), &e);  // |v| = m·2^e, m in [0.5, 1)
    const uint16_t mant = uint16_t((m * 2.0 - 1.0) * 1024.0);
    return uint16_t((v < 0 ? 0x8000 : 0) | ((e - 1 + 15) << 10) | mant);
}

WeightTensor make_weight(DType dtype, int rows, int cols, std::mt19937_64& rng, int lo, int hi,
                         int shift, Vec& ref) {
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

ModelConfig small_config(int n_kv_heads, RopeLayout layout) {
    ModelConfig c;
    c.n_layers = 2;
    c.n_heads = 4;
    c.n_kv_heads = n_kv_heads;
    c.head_dim = 20;
    c.n_embd = 80;
    c.n_ff = 100;      // not a multiple of 8: exercises the kernels' column tail
    c.vocab_size = 50; // not a multiple of 8: exercises the row tail
    c.max_context = 64;
    c.rope_theta = 10000.0f;
    c.rms_eps = 1e-5f;
    c.rope_layout = layout;
    return c;
}

Built build_model(const ModelConfig& c, DType dtype, uint64_t seed) {
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

std::vector<Item> token_items(const std::vector<int32_t>& tokens) {
    std::vector<Item> items;
    for (int32_t t : tokens) items.push_back(Item::of_token(t));
    return items;
}

std::vector<Vec> token_inputs(const RefModel& m, const std::vector<int32_t>& tokens) {
    std::vector<Vec> in;
    for (int32_t t : tokens)
        in.emplace_back(m.embd.begin() + size_t(t) * m.cfg.n_embd,
                        m.embd.begin() + size_t(t + 1) * m.cfg.n_embd);
    return in;
}

// max |a - b| / max |b|: the error relative to the scale of the reference vector.
template <class A, class B>
double relative_error(const A& a, const B& b) {
    double diff = 0.0, scale = 0.0;
    for (size_t i = 0; i < b.size(); ++i) {
        diff = std::max(diff, std::fabs(double(a[i]) - double(b[i])));
        scale = std::max(scale, std::fabs(double(b[i])));
    }
    return diff / scale;
}

std::vector<LayerContext> empty_context(int layers) { return std::vector<LayerContext>(layers); }

const std::vector<int32_t> kTokens = {3, 17, 42, 8, 8, 49, 0, 25, 11};
// Gaps and a late start: positions need not be 0..n-1.
const std::vector<int32_t> kPositions = {0, 1, 2, 3, 7, 8, 20, 21, 22};

}  // namespace

class TestForward : public QObject {
    Q_OBJECT

private slots:
    void matches_float64_reference_data() {
        QTest::addColumn<DType>("dtype");
        QTest::addColumn<int>("kv_heads");
        QTest::addColumn<RopeLayout>("layout");
        for (DType d : {DType::F32, DType::F16, DType::BF16})
            for (int kv : {4, 2, 1})  // 1, 2 and 4 query heads per KV head
                for (RopeLayout layout : {RopeLayout::Interleaved, RopeLayout::HalfSplit}) {
                    const QString name = QString("%1 kv%2 %3")
                                             .arg(QString::fromUtf8(dtype_name(d).data()))
                                             .arg(kv)
                                             .arg(layout == RopeLayout::Interleaved ? "interleaved"
                                                                                    : "halfsplit");
                    QTest::newRow(name.toUtf8().constData()) << d << kv << layout;
                }
    }

    void matches_float64_reference() {
        QFETCH(DType, dtype);
        QFETCH(int, kv_heads);
        QFETCH(RopeLayout, layout);
        const Built b = build_model(small_config(kv_heads, layout), dtype, 7 + kv_heads);
        const RefResult ref =
            reference_forward(b.ref, token_inputs(b.ref, kTokens), kPositions);

        CpuBackend backend(2);
        Transformer tf(b.model, backend, 2);
        ForwardOptions opt;
        opt.attention_mass = true;
        const ForwardOutput out =
            tf.forward(token_items(kTokens), kPositions, empty_context(2), opt);

        QVERIFY(relative_error(out.logits, ref.logits) < 1e-4);
        const int kvd = b.model->config.kv_dim();
        for (int l = 0; l < 2; ++l) {
            for (size_t i = 0; i < kTokens.size(); ++i) {
                const std::vector<float> k(out.k[l].begin() + i * kvd,
                                           out.k[l].begin() + (i + 1) * kvd);
                const std::vector<float> v(out.v[l].begin() + i * kvd,
                                           out.v[l].begin() + (i + 1) * kvd);
                QVERIFY(relative_error(k, ref.k[l][i]) < 1e-4);
                QVERIFY(relative_error(v, ref.v[l][i]) < 1e-4);
            }
            QVERIFY(relative_error(out.attention_mass[l], ref.mass[l]) < 1e-4);
        }
    }

    void prefill_then_decode_equals_single_pass_data() {
        QTest::addColumn<DType>("dtype");
        QTest::addColumn<int>("prefill");
        QTest::newRow("f32 prefill 5") << DType::F32 << 5;
        QTest::newRow("f16 prefill 1") << DType::F16 << 1;
        QTest::newRow("bf16 prefill 8") << DType::BF16 << 8;
    }

    void prefill_then_decode_equals_single_pass() {
        QFETCH(DType, dtype);
        QFETCH(int, prefill);
        const Built b = build_model(small_config(2, RopeLayout::Interleaved), dtype, 99);
        CpuBackend backend(2);
        Transformer tf(b.model, backend, 2);
        const ForwardOutput whole = tf.forward(token_items(kTokens), kPositions, empty_context(2));

        const int kvd = b.model->config.kv_dim();
        std::vector<std::vector<float>> k(2), v(2);
        std::vector<float> logits;
        for (size_t start = 0; start < kTokens.size();) {
            const size_t count = start == 0 ? size_t(prefill) : 1;
            std::vector<LayerContext> ctx;
            for (int l = 0; l < 2; ++l) ctx.push_back({int(start), k[l].data(), v[l].data()});
            const std::vector<int32_t> toks(kTokens.begin() + start,
                                            kTokens.begin() + start + count);
            const std::vector<int32_t> pos(kPositions.begin() + start,
                                           kPositions.begin() + start + count);
            ForwardOutput step = tf.forward(token_items(toks), pos, ctx);
            for (int l = 0; l < 2; ++l) {
                k[l].insert(k[l].end(), step.k[l].begin(), step.k[l].end());
                v[l].insert(v[l].end(), step.v[l].begin(), step.v[l].end());
            }
            logits = step.logits;
            start += count;
        }
        // Every sum in the CPU path has a fixed order that does not depend on how many items a
        // pass holds (core/backend/matmul_kernels.h), so the split run agrees to the bit.
        QCOMPARE(logits, whole.logits);
        for (int l = 0; l < 2; ++l) {
            QCOMPARE(k[l].size(), kTokens.size() * kvd);
            QCOMPARE(k[l], whole.k[l]);
            QCOMPARE(v[l], whole.v[l]);
        }
    }

    void attention_mass_sums_to_heads_per_query() {
        const Built b = build_model(small_config(1, RopeLayout::HalfSplit), DType::F32, 5);
        CpuBackend backend(2);
        Transformer tf(b.model, backend, 2);
        const ForwardOutput first = tf.forward(token_items({1, 2, 3, 4, 5}),
                                               std::vector<int32_t>{0, 1, 2, 3, 4},
                                               empty_context(2));
        std::vector<LayerContext> ctx;
        for (int l = 0; l < 2; ++l) ctx.push_back({5, first.k[l].data(), first.v[l].data()});
        ForwardOptions opt;
        opt.attention_mass = true;
        const ForwardOutput out =
            tf.forward(token_items({6, 7, 8}), std::vector<int32_t>{5, 6, 7}, ctx, opt);
        for (int l = 0; l < 2; ++l) {
            QCOMPARE(out.attention_mass[l].size(), size_t(8));
            double total = 0.0;
            for (float m : out.attention_mass[l]) {
                QVERIFY(m >= 0.0f);
                total += m;
            }
            QVERIFY(std::fabs(total - 3.0 * b.model->config.n_heads) < 1e-4);
            // The last row is only visible to the last query.
            QVERIFY(out.attention_mass[l][7] <= float(b.model->config.n_heads));
        }
    }

    void embedding_item_equals_token_item() {
        const Built b = build_model(small_config(2, RopeLayout::Interleaved), DType::BF16, 3);
        CpuBackend backend(2);
        Transformer tf(b.model, backend, 2);
        const int D = b.model->config.n_embd;
        std::vector<float> embedding(D);
        for (int d = 0; d < D; ++d) embedding[d] = float(b.ref.embd[size_t(42) * D + d]);
        std::vector<Item> with_embedding = token_items({3, 17, 8});
        std::vector<Item> with_token = token_items({3, 17, 8});
        with_embedding.insert(with_embedding.begin() + 1, Item{-1, embedding});
        with_token.insert(with_token.begin() + 1, Item::of_token(42));
        const std::vector<int32_t> pos{0, 1, 2, 3};
        const ForwardOutput a = tf.forward(with_embedding, pos, empty_context(2));
        const ForwardOutput t = tf.forward(with_token, pos, empty_context(2));
        QCOMPARE(a.logits, t.logits);
        QCOMPARE(a.k, t.k);
        QCOMPARE(a.v, t.v);
    }

    void result_does_not_depend_on_thread_count() {
        const Built b = build_model(small_config(4, RopeLayout::Interleaved), DType::F16, 11);
        CpuBackend one(1), two(2);
        Transformer t1(b.model, one, 1), t2(b.model, two, 2);
        const ForwardOutput a = t1.forward(token_items(kTokens), kPositions, empty_context(2));
        const ForwardOutput c = t2.forward(token_items(kTokens), kPositions, empty_context(2));
        QCOMPARE(a.logits, c.logits);
        QCOMPARE(a.k, c.k);
    }

    void bad_input_is_rejected() {
        const Built b = build_model(small_config(4, RopeLayout::Interleaved), DType::F32, 1);
        CpuBackend backend(1);
        Transformer tf(b.model, backend, 1);
        const std::vector<int32_t> one_pos{0};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 tf.forward(token_items({1, 2}), one_pos, empty_context(2)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 tf.forward(token_items({50}), one_pos, empty_context(2)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 tf.forward(token_items({1}), one_pos, empty_context(1)));
        const std::vector<float> short_embedding(3);
        const std::vector<Item> gist{Item{-1, short_embedding}};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 tf.forward(gist, one_pos, empty_context(2)));
    }
};

QTEST_APPLESS_MAIN(TestForward)
#include "test_forward.moc"
