// Whole forward passes on the CUDA backend against the CPU reference backend (issue 29's parity
// suite, forward level): the logits, the new K/V rows and the attention mass of a prefill and of
// decode steps, on the synthetic model in every weight type and over contexts stored in every
// K/V type behind a row index. Both backends see the same contexts (built from the CPU's rows),
// so errors do not compound; each output is compared by its normalised mean squared error
// Σ(a − b)² / Σb², as ggml's test-backend-ops measures, with a bound per type. Then FT-022's
// promise on the device: a prefill in one pass equals the same items one at a time, within the
// same bound. Skips as a whole when the machine has no CUDA device.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/backend/backend_registry.h"
#include "core/cache/kv_storage.h"
#include "core/engine/transformer.h"
#include "core/math/kv_quant.h"
#include "core/model/model_loader.h"
#include "tests/gpu/cuda_device.h"
#include "tests/gpu/nmse.h"
#include "tests/unit/forward_rows.h"

using namespace kvw;
using kvw::test::nmse;

Q_DECLARE_METATYPE(kvw::KvType)

namespace {

// One layer's cached rows as a cache stores them: encoded in `type`, in a shuffled physical
// order behind an index (logical row j at physical row index[j]), with rope positions.
struct StoredLayer {
    KvType type = KvType::F32;
    int kv_dim = 0, groups = 0;
    std::vector<uint8_t> k, v;
    std::vector<float> k_scale, v_scale;
    std::vector<int32_t> index, positions;

    void append(const float* k_row, const float* v_row, int32_t position, uint32_t& seed) {
        const size_t bytes = size_t(kv_dim) * size_t(kv_type_bytes(type));
        const size_t physical = index.size();
        k.resize((physical + 1) * bytes);
        v.resize(k.size());
        k_scale.resize((physical + 1) * size_t(groups));
        v_scale.resize(k_scale.size());
        QuantStats ignored;
        kv_encode_row(type, k_row, kv_dim, groups, &k[physical * bytes],
                      &k_scale[physical * size_t(groups)], ignored);
        kv_encode_row(type, v_row, kv_dim, groups, &v[physical * bytes],
                      &v_scale[physical * size_t(groups)], ignored);
        // The new row takes a random logical place among the physical rows' order: the index
        // is a permutation, never the identity after a few rows.
        seed = seed * 1664525u + 1013904223u;
        const size_t at = index.empty() ? 0 : (seed >> 8) % (index.size() + 1);
        index.insert(index.begin() + ptrdiff_t(at), int32_t(physical));
        positions.insert(positions.begin() + ptrdiff_t(at), position);
    }

    LayerContext view() const {
        LayerContext c;
        c.rows = int(index.size());
        c.k = {k.data(), type, kv_type_scaled(type) ? k_scale.data() : nullptr};
        c.v = {v.data(), type, kv_type_scaled(type) ? v_scale.data() : nullptr};
        c.index = index.data();
        c.positions = positions.data();
        c.k_store = type;
        c.v_store = type;
        return c;
    }
};

// NMSE bounds. Both backends sum float32 in their own orders (≈1e-7 relative: NMSE ≈ 1e-13);
// cuBLAS rounds x to a 16-bit weight type first (f16 2⁻¹¹, bf16 2⁻⁸ relative); a K/V type that
// rounds may round a value computed a few ulps apart to the neighbouring code.
double bound(DType weights, KvType kv) {
    double b = 1e-9;
    if (weights == DType::F16) b = 1e-5;
    if (weights == DType::BF16) b = 1e-3;
    if (kv == KvType::Int8 || kv == KvType::Fp8E4M3) b = std::max(b, 1e-4);
    if (kv == KvType::F16 || kv == KvType::BF16) b = std::max(b, 1e-6);
    return b;
}

std::vector<Item> tokens_of(const std::vector<int32_t>& ids) {
    std::vector<Item> items;
    for (int32_t id : ids) items.push_back(Item::of_token(id));
    return items;
}

}  // namespace

class TestCudaForward : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (const std::string why = test::why_no_cuda(); !why.empty()) QSKIP(why.c_str());
        cuda_ = create_backend("cuda");
        cpu_ = create_backend("cpu");
    }

    void steps_match_the_cpu_data() {
        QTest::addColumn<QString>("weights");
        QTest::addColumn<KvType>("kv");
        QTest::addColumn<int>("window");
        for (const char* w : {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_k", "q6_k"})
            QTest::newRow(w) << QString(w) << KvType::F32 << 0;
        for (KvType kv : {KvType::F16, KvType::BF16, KvType::Int8, KvType::Fp8E4M3})
            QTest::newRow(qPrintable(QString("q4_k, kv %1").arg(kv_type_name(kv))))
                << "q4_k" << kv << 0;
        // Sliding windows on layers 0 and 2 that cut the prompt and the context.
        QTest::newRow("f32, window 4") << "f32" << KvType::F32 << 4;
        QTest::newRow("q8_0, window 7, kv int8") << "q8_0" << KvType::Int8 << 7;
    }

    // A prefill of 11 items (the batched paths: cuBLAS, a widened tile for block types), three
    // decode steps (the mat-vec kernels) and a step of 3 items, with the attention mass; every
    // output against the CPU's for the same context.
    void steps_match_the_cpu() {
        QFETCH(QString, weights);
        QFETCH(KvType, kv);
        QFETCH(int, window);
        auto windowed =
            std::make_shared<Model>(*load_model("synthetic:tiny:" + weights.toStdString()));
        if (window > 0)
            for (int l = 0; l < windowed->config.n_layers; ++l)
                windowed->config.layer_window.push_back(l % 2 == 0 ? window : 0);
        const std::shared_ptr<const Model> model = windowed;
        const ModelConfig& cfg = model->config;
        const Transformer on_cpu(model, *cpu_), on_cuda(model, *cuda_);
        const DType dtype = model->weights.layers[0].wq.dtype;
        const double limit = bound(dtype, kv);

        std::vector<StoredLayer> layers(size_t(cfg.n_layers));
        for (StoredLayer& l : layers) {
            l.type = kv;
            l.kv_dim = cfg.kv_dim();
            l.groups = cfg.n_kv_heads;
        }
        uint32_t seed = 17;
        const std::vector<int32_t> prompt =
            model->tokenizer.encode("the cache remembers every row", true);
        std::vector<std::vector<int32_t>> steps;
        steps.emplace_back(prompt.begin(), prompt.end());
        for (int32_t t : {5, 9, 14}) steps.push_back({t});
        steps.push_back({21, 3, 8});

        int32_t position = 0;
        for (size_t s = 0; s < steps.size(); ++s) {
            const std::vector<Item> items = tokens_of(steps[s]);
            std::vector<int32_t> positions(items.size());
            std::iota(positions.begin(), positions.end(), position);
            std::vector<LayerContext> context;
            for (const StoredLayer& l : layers) context.push_back(l.view());
            ForwardOptions options;
            options.attention_mass = true;
            options.logit_items = int(items.size());
            const ForwardOutput want = on_cpu.forward(items, positions, context, options);
            const ForwardOutput got = on_cuda.forward(items, positions, context, options);

            const QString where = QString("step %1 (%2 items)").arg(s).arg(items.size());
            auto check = [&](const char* what, const std::vector<float>& a,
                             const std::vector<float>& b) {
                const double e = nmse(a, b);
                if (!(e <= limit))
                    QFAIL(qPrintable(QString("%1, %2: NMSE %3 > %4")
                                         .arg(where, what)
                                         .arg(e, 0, 'g', 3)
                                         .arg(limit, 0, 'g', 3)));
            };
            check("logits", got.logits, want.logits);
            const auto want_k = test::host_layers(want.k), want_v = test::host_layers(want.v);
            for (int l = 0; l < cfg.n_layers; ++l) {
                check("K", got.k.host(l), want_k[size_t(l)]);
                check("V", got.v.host(l), want_v[size_t(l)]);
                check("attention mass", got.attention_mass[size_t(l)],
                      want.attention_mass[size_t(l)]);
            }
            for (int l = 0; l < cfg.n_layers; ++l)
                for (size_t i = 0; i < items.size(); ++i)
                    layers[size_t(l)].append(&want_k[size_t(l)][i * size_t(cfg.kv_dim())],
                                             &want_v[size_t(l)][i * size_t(cfg.kv_dim())],
                                             positions[i], seed);
            position += int32_t(items.size());
        }
    }

    // FT-022: the rows and logits of a prefill in one pass equal those of the same items fed
    // one at a time with the earlier rows as context, on the device (the batched and the
    // mat-vec paths sum in different orders, hence the bound rather than equal bits).
    void prefill_equals_one_at_a_time() {
        const auto model = load_model("synthetic:tiny:q8_0");
        const ModelConfig& cfg = model->config;
        const Transformer engine(model, *cuda_);
        const std::vector<int32_t> prompt = model->tokenizer.encode("one pass or one by one", true);
        const std::vector<Item> items = tokens_of(prompt);
        std::vector<int32_t> positions(items.size());
        std::iota(positions.begin(), positions.end(), 0);
        const std::vector<LayerContext> empty(size_t(cfg.n_layers));
        const ForwardOutput whole = engine.forward(items, positions, empty);

        std::vector<std::vector<float>> k(size_t(cfg.n_layers)), v(size_t(cfg.n_layers));
        std::vector<float> last_logits;
        for (size_t i = 0; i < items.size(); ++i) {
            std::vector<LayerContext> context(size_t(cfg.n_layers));
            for (int l = 0; l < cfg.n_layers; ++l) {
                context[size_t(l)].rows = int(i);
                context[size_t(l)].k.data = k[size_t(l)].data();
                context[size_t(l)].v.data = v[size_t(l)].data();
            }
            const ForwardOutput last =
                engine.forward(std::span(&items[i], 1), std::span(&positions[i], 1), context);
            for (int l = 0; l < cfg.n_layers; ++l) {
                const std::vector<float> new_k = last.k.host(l), new_v = last.v.host(l);
                k[size_t(l)].insert(k[size_t(l)].end(), new_k.begin(), new_k.end());
                v[size_t(l)].insert(v[size_t(l)].end(), new_v.begin(), new_v.end());
            }
            last_logits = last.logits;
        }
        QVERIFY2(nmse(last_logits, whole.logits) <= 1e-9, "logits");
        for (int l = 0; l < cfg.n_layers; ++l) {
            QVERIFY2(nmse(k[size_t(l)], whole.k.host(l)) <= 1e-9, "K rows");
            QVERIFY2(nmse(v[size_t(l)], whole.v.host(l)) <= 1e-9, "V rows");
        }
    }

    // The same forward twice on the device gives the same bits (no float atomics, fixed orders).
    void a_forward_repeats_bit_for_bit() {
        const auto model = load_model("synthetic:tiny:q4_k");
        const Transformer engine(model, *cuda_);
        const std::vector<int32_t> prompt = model->tokenizer.encode("again and again", true);
        const std::vector<Item> items = tokens_of(prompt);
        std::vector<int32_t> positions(items.size());
        std::iota(positions.begin(), positions.end(), 0);
        const std::vector<LayerContext> empty(size_t(model->config.n_layers));
        ForwardOptions options;
        options.attention_mass = true;
        const ForwardOutput a = engine.forward(items, positions, empty, options);
        const ForwardOutput b = engine.forward(items, positions, empty, options);
        QVERIFY(a.logits == b.logits);
        QVERIFY(test::host_layers(a.k) == test::host_layers(b.k));
        QVERIFY(test::host_layers(a.v) == test::host_layers(b.v));
        QVERIFY(a.attention_mass == b.attention_mass);
    }

private:
    std::unique_ptr<Backend> cuda_;
    std::unique_ptr<Backend> cpu_;
};

QTEST_APPLESS_MAIN(TestCudaForward)
#include "test_cuda_forward.moc"
