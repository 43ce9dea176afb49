// The transformer forward pass against the float64 reference of reference_model.h (plain loops,
// nothing shared with the engine), on small models built in memory with random weights.
#include <QtTest>

#include "reference_model.h"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/backend/cpu/cpu_backend.h"
#include "core/engine/transformer.h"
#include "tests/unit/forward_rows.h"

using namespace kvw;
using namespace kvw::test;

Q_DECLARE_METATYPE(kvw::DType)
Q_DECLARE_METATYPE(kvw::RopeLayout)

namespace {

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
                    const QString name =
                        QString("%1 kv%2 %3")
                            .arg(QString::fromUtf8(dtype_name(d).data()))
                            .arg(kv)
                            .arg(layout == RopeLayout::Interleaved ? "interleaved" : "halfsplit");
                    QTest::newRow(name.toUtf8().constData()) << d << kv << layout;
                }
    }

    void matches_float64_reference() {
        QFETCH(DType, dtype);
        QFETCH(int, kv_heads);
        QFETCH(RopeLayout, layout);
        const Built b = build_model(small_config(kv_heads, layout), dtype, 7 + kv_heads);
        const RefResult ref = reference_forward(b.ref, token_inputs(b.ref, kTokens), kPositions);

        CpuBackend backend(2);
        Transformer tf(b.model, backend);
        ForwardOptions opt;
        opt.attention_mass = true;
        const ForwardOutput out =
            tf.forward(token_items(kTokens), kPositions, empty_context(2), opt);

        QVERIFY(relative_error(out.logits, ref.logits.back()) < 1e-4);
        const int kvd = b.model->config.kv_dim();
        const auto out_k = test::host_layers(out.k), out_v = test::host_layers(out.v);
        for (int l = 0; l < 2; ++l) {
            for (size_t i = 0; i < kTokens.size(); ++i) {
                const std::vector<float> k(out_k[l].begin() + i * kvd,
                                           out_k[l].begin() + (i + 1) * kvd);
                const std::vector<float> v(out_v[l].begin() + i * kvd,
                                           out_v[l].begin() + (i + 1) * kvd);
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
        Transformer tf(b.model, backend);
        const ForwardOutput whole = tf.forward(token_items(kTokens), kPositions, empty_context(2));

        const int kvd = b.model->config.kv_dim();
        std::vector<std::vector<float>> k(2), v(2);
        std::vector<float> logits;
        for (size_t start = 0; start < kTokens.size();) {
            const size_t count = start == 0 ? size_t(prefill) : 1;
            std::vector<LayerContext> ctx;
            for (int l = 0; l < 2; ++l) ctx.push_back({int(start), {k[l].data()}, {v[l].data()}});
            const std::vector<int32_t> toks(kTokens.begin() + start,
                                            kTokens.begin() + start + count);
            const std::vector<int32_t> pos(kPositions.begin() + start,
                                           kPositions.begin() + start + count);
            ForwardOutput step = tf.forward(token_items(toks), pos, ctx);
            const auto step_k = test::host_layers(step.k), step_v = test::host_layers(step.v);
            for (int l = 0; l < 2; ++l) {
                k[l].insert(k[l].end(), step_k[l].begin(), step_k[l].end());
                v[l].insert(v[l].end(), step_v[l].begin(), step_v[l].end());
            }
            logits = step.logits;
            start += count;
        }
        // Every sum in the CPU path has a fixed order that does not depend on how many items a
        // pass holds (core/backend/cpu/matmul_kernels.h), so the split run agrees to the bit.
        QCOMPARE(logits, whole.logits);
        for (int l = 0; l < 2; ++l) {
            QCOMPARE(k[l].size(), kTokens.size() * kvd);
            QCOMPARE(k[l], whole.k.host(l));
            QCOMPARE(v[l], whole.v.host(l));
        }
    }

    void attention_mass_sums_to_heads_per_query() {
        const Built b = build_model(small_config(1, RopeLayout::HalfSplit), DType::F32, 5);
        CpuBackend backend(2);
        Transformer tf(b.model, backend);
        const ForwardOutput first = tf.forward(
            token_items({1, 2, 3, 4, 5}), std::vector<int32_t>{0, 1, 2, 3, 4}, empty_context(2));
        std::vector<LayerContext> ctx;
        // The CPU backend's memory is the host's: the rows are read as host floats.
        for (int l = 0; l < 2; ++l) ctx.push_back({5, {first.k.of(l)}, {first.v.of(l)}});
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
        Transformer tf(b.model, backend);
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
        QCOMPARE(test::host_layers(a.k), test::host_layers(t.k));
        QCOMPARE(test::host_layers(a.v), test::host_layers(t.v));
    }

    void result_does_not_depend_on_thread_count() {
        const Built b = build_model(small_config(4, RopeLayout::Interleaved), DType::F16, 11);
        CpuBackend one(1), two(2);
        Transformer t1(b.model, one), t2(b.model, two);
        const ForwardOutput a = t1.forward(token_items(kTokens), kPositions, empty_context(2));
        const ForwardOutput c = t2.forward(token_items(kTokens), kPositions, empty_context(2));
        QCOMPARE(a.logits, c.logits);
        QCOMPARE(test::host_layers(a.k), test::host_layers(c.k));
    }

    void bad_input_is_rejected() {
        const Built b = build_model(small_config(4, RopeLayout::Interleaved), DType::F32, 1);
        CpuBackend backend(1);
        Transformer tf(b.model, backend);
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
