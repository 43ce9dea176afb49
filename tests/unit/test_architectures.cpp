// Architectures as data (docs/ARCHITECTURE.md §2.1): tests/data/make_arch.py writes one tiny
// random-weight model per family as a Hugging Face folder and, through the `gguf` package, as
// the GGUF llama.cpp's converter makes of it, and computes the logits in float64 with
// transformers' modelling written out in numpy. The engine must reproduce them from both files;
// a missing key or tensor, and an unknown architecture, are refused by name.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/backend/backend.h"
#include "core/engine/transformer.h"
#include "core/model/gguf_file.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/gguf_requantize.h"
#include "core/model/hf_model_loader.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/session/session.h"
#include "core/state/state_manager.h"
#include "tests/testdata.h"
#include "tests/unit/forward_rows.h"
#include "tests/unit/one_pass_logits.h"

using namespace kvw;

namespace {

struct Reference {
    std::vector<int32_t> ids;
    std::vector<double> logits;
    std::vector<int32_t> greedy;
    std::vector<double> short_logits;  // LongRoPE: the logits with the short factors
};

template <class T>
std::vector<T> numbers(const std::string& line) {
    std::stringstream in(line);
    std::vector<T> out;
    for (T x; in >> x;) out.push_back(x);
    return out;
}

Reference read_reference(const std::string& family) {
    std::ifstream in(test::testdata_path("arch/" + family + "/reference.txt"));
    if (!in) qFatal("cannot open the reference of %s", family.c_str());
    Reference r;
    std::string line;
    std::getline(in, line);
    r.ids = numbers<int32_t>(line);
    std::getline(in, line);
    r.logits = numbers<double>(line);
    std::getline(in, line);
    r.greedy = numbers<int32_t>(line);
    if (std::getline(in, line)) r.short_logits = numbers<double>(line);
    return r;
}

// Greedy continuation, each step a full pass (as the reference does it).
std::vector<int32_t> greedy_of(const Transformer& transformer, std::vector<int32_t> ids,
                               int steps) {
    std::vector<int32_t> out;
    for (int s = 0; s < steps; ++s) {
        const std::vector<float> logits = test::one_pass_logits(transformer, ids);
        const int32_t next =
            int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
        out.push_back(next);
        ids.push_back(next);
    }
    return out;
}

std::string model_path(const std::string& family, bool gguf) {
    return test::testdata_path("arch/" + family) + (gguf ? "/model.gguf" : "/hf");
}

std::shared_ptr<Model> load(const std::string& family, bool gguf) {
    return gguf ? load_gguf_model(map_file(model_path(family, gguf)))
                : load_hf_model(model_path(family, gguf));
}

// A data row per family make_arch.py wrote (families.txt) and file: the HF folder, and the GGUF
// where the family has one (a window from max_window_layers on has no GGUF form).
void add_model_rows() {
    QTest::addColumn<QString>("family");
    QTest::addColumn<bool>("gguf");
    std::ifstream in(test::testdata_path("arch/families.txt"));
    int families = 0;
    for (std::string family; std::getline(in, family); ++families)
        for (const bool gguf : {false, true})
            if (!gguf || std::filesystem::exists(model_path(family, true)))
                QTest::newRow((family + (gguf ? " gguf" : " hf")).c_str())
                    << QString::fromStdString(family) << gguf;
    if (families < 8) qFatal("arch/families.txt lists %d families", families);
}

const std::map<std::string, ModelErrorKind> kKinds = {
    {"BadMetadata", ModelErrorKind::BadMetadata},
    {"MissingMetadata", ModelErrorKind::MissingMetadata},
    {"MissingTensor", ModelErrorKind::MissingTensor},
    {"ShapeMismatch", ModelErrorKind::ShapeMismatch},
};

}  // namespace

class TestArchitectures : public QObject {
    Q_OBJECT

private slots:
    void matches_float64_reference_data() { add_model_rows(); }
    void matches_float64_reference() {
        QFETCH(QString, family);
        QFETCH(bool, gguf);
        const Reference ref = read_reference(family.toStdString());
        QVERIFY(ref.ids.size() >= 8 && !ref.greedy.empty());
        const auto model = load(family.toStdString(), gguf);
        auto backend = make_cpu_backend(1);
        const Transformer transformer(model, *backend);
        const std::vector<float> logits = test::one_pass_logits(transformer, ref.ids);
        QCOMPARE(logits.size(), ref.logits.size());
        const double err = test::relative_error(logits, ref.logits);
        qInfo("%s: relative error %g", qPrintable(family), err);
        QVERIFY2(err < 1e-4, qPrintable(QString("relative error %1").arg(err)));
        QCOMPARE(greedy_of(transformer, ref.ids, int(ref.greedy.size())), ref.greedy);
    }

    // The switches are what make the families match: each turned off must miss the reference.
    void each_switch_matters() {
        const Reference qwen2 = read_reference("qwen2");
        auto model = load("qwen2", true);
        model->config.qkv_bias = false;
        auto backend = make_cpu_backend(1);
        {
            const Transformer t(model, *backend);
            QVERIFY(test::relative_error(test::one_pass_logits(t, qwen2.ids), qwen2.logits) > 1e-2);
        }
        model = load("qwen2", true);
        model->config.rope_layout = RopeLayout::Interleaved;
        {
            const Transformer t(model, *backend);
            QVERIFY(test::relative_error(test::one_pass_logits(t, qwen2.ids), qwen2.logits) > 1e-2);
        }
        const Reference qwen3 = read_reference("qwen3");
        model = load("qwen3", false);
        model->config.qk_norm = false;
        {
            const Transformer t(model, *backend);
            QVERIFY(test::relative_error(test::one_pass_logits(t, qwen3.ids), qwen3.logits) > 1e-2);
        }
        for (const char* family : {"llama3", "linear"}) {
            const Reference ref = read_reference(family);
            for (const bool gguf : {false, true}) {
                model = load(family, gguf);
                QVERIFY(model->config.rope_scaling != RopeScaling::None);
                model->config.rope_scaling = RopeScaling::None;
                model->config.rope_freq_divisors.clear();
                const Transformer t(model, *backend);
                QVERIFY(test::relative_error(test::one_pass_logits(t, ref.ids), ref.logits) > 1e-2);
            }
        }
    }

    // The windows are read per layer: Mistral's on every layer (both files), Qwen2's from
    // max_window_layers on; turned off, the windowed families miss the reference.
    void sliding_windows_per_layer() {
        for (const bool gguf : {false, true})
            QCOMPARE(load("mistral", gguf)->config.layer_window, (std::vector<int32_t>{7, 7}));
        QCOMPARE(load("qwen2_swa", false)->config.layer_window, (std::vector<int32_t>{0, 5}));
        QVERIFY(load("qwen2", false)->config.layer_window.empty());  // use_sliding_window false
        auto backend = make_cpu_backend(1);
        for (const char* family : {"mistral", "qwen2_swa"}) {
            const Reference ref = read_reference(family);
            auto model = load(family, false);
            model->config.layer_window.clear();
            const Transformer t(model, *backend);
            QVERIFY(test::relative_error(test::one_pass_logits(t, ref.ids), ref.logits) > 1e-2);
        }
    }

    // Token by token, each step attending over the rows before it by their positions, gives
    // the bits of one pass: a windowed query reads the same rows either way. The context
    // holds positions that are not row numbers (every row shifted by 40), as after edits.
    void windowed_decode_equals_one_pass() {
        const Reference ref = read_reference("mistral");
        auto backend = make_cpu_backend(1);
        const auto model = load("mistral", true);
        const Transformer t(model, *backend);
        const size_t L = size_t(model->config.n_layers);
        const int kv_dim = model->config.kv_dim();
        std::vector<Item> items;
        std::vector<int32_t> positions;
        for (size_t i = 0; i < ref.ids.size(); ++i) {
            items.push_back(Item::of_token(ref.ids[i]));
            positions.push_back(int32_t(i) + 40);
        }
        const std::vector<LayerContext> empty(L);
        const ForwardOutput whole = t.forward(items, positions, empty, {true, true});
        std::vector<std::vector<float>> k(L), v(L);
        ForwardOutput step;
        for (size_t i = 0; i < items.size(); ++i) {
            std::vector<LayerContext> ctx(L);
            for (size_t l = 0; l < L; ++l) {
                ctx[l].rows = int(i);
                ctx[l].k.data = k[l].data();
                ctx[l].v.data = v[l].data();
                ctx[l].positions = positions.data();
            }
            step = t.forward(std::span<const Item>(&items[i], 1),
                             std::span<const int32_t>(&positions[i], 1), ctx, {true, true});
            const auto step_k = test::host_layers(step.k), step_v = test::host_layers(step.v);
            for (size_t l = 0; l < L; ++l) {
                k[l].insert(k[l].end(), step_k[l].begin(), step_k[l].end());
                v[l].insert(v[l].end(), step_v[l].begin(), step_v[l].end());
            }
        }
        QCOMPARE(k[0].size(), ref.ids.size() * size_t(kv_dim));
        QCOMPARE(step.logits, whole.logits);
        // The last query gave no weight to the rows outside its window, all to those inside.
        const std::vector<float>& mass = step.attention_mass[1];
        const int n = int(ref.ids.size());
        double inside = 0.0;
        for (int j = 0; j < n; ++j) {
            if (j <= n - 1 - 7)
                QCOMPARE(mass[size_t(j)], 0.0f);
            else
                inside += mass[size_t(j)];
        }
        QVERIFY(std::abs(inside - model->config.n_heads) < 1e-4);
        // A windowed layer's context without positions is refused, not read as row numbers.
        std::vector<LayerContext> no_positions(L);
        for (size_t l = 0; l < L; ++l) {
            no_positions[l].rows = 3;
            no_positions[l].k.data = k[l].data();
            no_positions[l].v.data = v[l].data();
        }
        QVERIFY_THROWS_EXCEPTION(
            std::invalid_argument,
            t.forward(std::span<const Item>(&items[3], 1),
                      std::span<const int32_t>(&positions[3], 1), no_positions));
        QVERIFY(test::relative_error(whole.logits, ref.logits) < 1e-4);
    }

    // The StateManager hands the engine each layer's rope positions: a windowed model stepped
    // token by token holds the cache one reference pass computes (no drift), with its logits.
    void windowed_session_has_no_drift() {
        const Reference ref = read_reference("mistral");
        auto backend = make_cpu_backend(1);
        const Transformer t(load("mistral", false), *backend);
        StateManager state(t, StateOptions{64});
        for (size_t i = 0; i < ref.ids.size(); ++i)
            state.append(std::span<const int32_t>(&ref.ids[i], 1), EntryKind::Prompt, int64_t(i));
        const DriftReport drift = state.measure_drift(0.0f);
        QCOMPARE(drift.first_diverging_layer, -1);
        const double err = test::relative_error(state.last_logits(), ref.logits);
        QVERIFY2(err < 1e-4, qPrintable(QString("relative error %1").arg(err)));
    }

    // LongRoPE: both files give the factors and the attention factor transformers derives from
    // the contexts (sqrt(1 + ln 16 / ln 16) for 256 positions over 16); a context up to the
    // original 16 positions rotates with the short factors, a longer one with the long factors
    // (the reference's lines 4 and 2), and without the attention factor both miss.
    void longrope_factors_follow_the_context() {
        const Reference ref = read_reference("phi3_longrope");
        QCOMPARE(ref.short_logits.size(), ref.logits.size());
        QVERIFY(test::relative_error(
                    std::vector<float>(ref.short_logits.begin(), ref.short_logits.end()),
                    ref.logits) > 1e-2);  // the two sets differ visibly
        auto backend = make_cpu_backend(1);
        for (const bool gguf : {false, true}) {
            auto model = load("phi3_longrope", gguf);
            const ModelConfig& c = model->config;
            QVERIFY(c.rope_scaling == RopeScaling::LongRope);
            QCOMPARE(c.rope_original_context, 16);
            QVERIFY(std::abs(c.rope_attention_factor - std::sqrt(2.0f)) < 1e-6f);
            QCOMPARE(c.rope_freq_divisors[7], 1.5f);
            QCOMPARE(c.rope_long_divisors[7], 12.0f);
            QVERIFY(!c.uses_long_rope(16) && c.uses_long_rope(17));
            const Transformer short_context(model, *backend, 16);
            const Transformer long_context(model, *backend, 17);
            const std::vector<float> s = test::one_pass_logits(short_context, ref.ids);
            const std::vector<float> l = test::one_pass_logits(long_context, ref.ids);
            QVERIFY2(test::relative_error(s, ref.short_logits) < 1e-4,
                     qPrintable(QString::number(test::relative_error(s, ref.short_logits))));
            QVERIFY2(test::relative_error(l, ref.logits) < 1e-4,
                     qPrintable(QString::number(test::relative_error(l, ref.logits))));
            model->config.rope_attention_factor = 1.0f;
            const Transformer unscaled(model, *backend, 17);
            QVERIFY(test::relative_error(test::one_pass_logits(unscaled, ref.ids), ref.logits) >
                    1e-2);
        }
    }

    // A K-shift re-rotates with the factors the engine rotated with: after a removal under
    // Reindex, layer 0's K (which depends only on token and position) equals a fresh pass over
    // the remaining tokens, in a long context (capacity 64 > 16) whose factors are not the
    // short ones.
    void longrope_k_shift_composes() {
        const Reference ref = read_reference("phi3_longrope");
        auto backend = make_cpu_backend(1);
        const auto model = load("phi3_longrope", true);
        const Transformer t(model, *backend, 64);
        StateManager state(t, StateOptions{64, RopePolicy::Reindex});
        state.append(ref.ids, EntryKind::Prompt, 0);
        QVERIFY(test::relative_error(state.last_logits(), ref.logits) < 1e-4);
        state.remove({}, 2, 1);
        std::vector<int32_t> rest = ref.ids;
        rest.erase(rest.begin() + 2);
        std::vector<Item> items;
        std::vector<int32_t> positions;
        for (size_t i = 0; i < rest.size(); ++i) {
            items.push_back(Item::of_token(rest[i]));
            positions.push_back(int32_t(i));
        }
        const std::vector<LayerContext> empty(size_t(model->config.n_layers));
        const ForwardOutput fresh = t.forward(items, positions, empty, {false, false});
        const std::vector<float> fresh_k = fresh.k.host(0);
        const int kv = model->config.kv_dim();
        std::vector<float> k(size_t(kv), 0.0f);
        for (int r = 0; r < int(rest.size()); ++r) {
            state.cache().read_k(0, r, k.data());
            double err = 0.0, norm = 0.0;
            for (int i = 0; i < kv; ++i) {
                const double e = fresh_k[size_t(r * kv + i)];
                err = std::max(err, std::fabs(double(k[size_t(i)]) - e));
                norm += e * e;
            }
            QVERIFY2(err / std::sqrt(norm) <= 1e-6,
                     qPrintable(QString("row %1: %2").arg(r).arg(err)));
        }
    }

    // Every family serves the workbench's sessions: each selective policy evicts from a small
    // cache for some ticks (the Reindex RoPE policy re-rotates with the model's own RoPE) and
    // every invariant holds after every tick, read in full; a rebuild then leaves the cache
    // equal to a fresh recompute from the mirror (no drift), sliding windows and LongRoPE
    // included.
    void every_policy_runs_on_every_family_data() { add_model_rows(); }
    void every_policy_runs_on_every_family() {
        QFETCH(QString, family);
        QFETCH(bool, gguf);
        for (const char* policy : {"streaming-llm", "h2o", "random"}) {
            SessionOptions options;
            options.model = model_path(family.toStdString(), gguf);
            options.capacity = 48;
            options.proposer = policy;
            options.policy.budget = PolicyBudget{2, 6, 4};
            options.rope_policy = RopePolicy::Reindex;
            Session session(options);
            session.start("In the beginning God created the heaven and the earth.");
            for (int t = 0; t < 8; ++t) {
                const TickResult r = session.step();
                QVERIFY2(!r.rejected && !r.aborted,
                         qPrintable(QString::fromStdString(policy + (": " + r.abort_reason))));
                for (const InvariantResult& i : session.state().check_invariants_full())
                    QVERIFY2(i.passed, qPrintable(QString::fromStdString(
                                           std::string(policy) + ": " + i.name + " " + i.detail)));
            }
            QVERIFY2(session.state().rows(0) <= 2 + 6 + 4 + 1, policy);  // it did evict
            session.rebuild();
            QCOMPARE(session.measure_drift().first_diverging_layer, -1);
        }
    }

    // config.json's llama3 parameters give the divisors the converter writes as rope_freqs.
    void llama3_divisors_agree() {
        const auto hf = load("llama3", false);
        const auto gguf = load("llama3", true);
        QVERIFY(hf->config.rope_scaling == RopeScaling::Llama3);
        QVERIFY(gguf->config.rope_scaling == RopeScaling::Llama3);
        QCOMPARE(hf->config.rope_freq_divisors.size(), size_t(8));
        QCOMPARE(gguf->config.rope_freq_divisors.size(), size_t(8));
        for (size_t i = 0; i < 8; ++i)
            QVERIFY(std::abs(hf->config.rope_freq_divisors[i] -
                             gguf->config.rope_freq_divisors[i]) < 1e-5f);
        // The three bands are there: kept, blended, divided by the factor.
        QCOMPARE(hf->config.rope_freq_divisors[0], 1.0f);
        QVERIFY(hf->config.rope_freq_divisors[1] > 1.0f && hf->config.rope_freq_divisors[1] < 4.0f);
        QCOMPARE(hf->config.rope_freq_divisors[7], 4.0f);
        const auto linear = load("linear", true);
        QVERIFY(linear->config.rope_scaling == RopeScaling::Linear);
        QCOMPARE(linear->config.rope_scale_factor, 2.5f);
    }

    void loads_as_the_family() {
        for (const bool gguf : {false, true}) {
            const auto qwen2 = load("qwen2", gguf);
            QCOMPARE(qwen2->config.architecture, std::string("qwen2"));
            QVERIFY(qwen2->config.qkv_bias && !qwen2->config.qk_norm);
            QVERIFY(qwen2->config.rope_layout == RopeLayout::HalfSplit);
            QVERIFY(qwen2->weights.output.data == qwen2->weights.token_embd.data);  // tied
            const auto qwen3 = load("qwen3", gguf);
            QVERIFY(qwen3->config.qk_norm && !qwen3->config.qkv_bias);
            QCOMPARE(qwen3->config.head_dim, 24);
            QCOMPARE(qwen3->config.q_dim(), 96);
            QVERIFY(qwen3->weights.output.data != qwen3->weights.token_embd.data);
            // Fused tensors are split by views over the file's bytes, not copied.
            const auto phi3 = load("phi3", gguf);
            const LayerWeights& l = phi3->weights.layers[0];
            QCOMPARE(l.wk.data, static_cast<const void*>(l.wq.row_ptr(l.wq.rows)));
            QCOMPARE(l.wv.data, static_cast<const void*>(l.wk.row_ptr(l.wk.rows)));
            QCOMPARE(l.w_up.data, static_cast<const void*>(l.w_gate.row_ptr(l.w_gate.rows)));
        }
    }

    // Views over block-quantised rows: the fused Phi-3 matrices as Q8_0 (blocks never straddle
    // a row, so a row range of the fused tensor is whole blocks) run close to the reference.
    void fused_views_over_quantised_rows() {
        const Reference ref = read_reference("phi3");
        const GgufFile f32(map_file(test::testdata_path("arch/phi3/model.gguf")));
        const auto model =
            load_gguf_model(bytes_in_memory(requantize_gguf(f32, GgufType::Q8_0), "phi3 q8_0"));
        const LayerWeights& l = model->weights.layers[1];
        QVERIFY(l.wq.dtype == DType::Q8_0 && l.w_up.dtype == DType::Q8_0);
        QCOMPARE(l.wv.data, static_cast<const void*>(l.wk.row_ptr(l.wk.rows)));
        auto backend = make_cpu_backend(1);
        const Transformer t(model, *backend);
        const double err = test::relative_error(test::one_pass_logits(t, ref.ids), ref.logits);
        qInfo("phi3 Q8_0: relative error %g", err);
        QVERIFY2(err < 5e-2, qPrintable(QString("relative error %1").arg(err)));
    }

    void refuses_by_name_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("text");
        std::ifstream in(test::testdata_path("arch/bad_cases.txt"));
        QVERIFY(in.good());
        for (std::string line; std::getline(in, line);) {
            const QStringList f = QString::fromStdString(line).split('\t');
            QCOMPARE(f.size(), 3);
            QTest::newRow(qPrintable(f[0])) << f[0] << f[1] << f[2];
        }
    }
    void refuses_by_name() {
        QFETCH(QString, name);
        QFETCH(QString, kind);
        QFETCH(QString, text);
        const std::string path = test::testdata_path("arch/bad/" + name.toStdString());
        try {
            if (name.endsWith(".gguf"))
                load_gguf_model(map_file(path));
            else
                load_hf_model(path);
            QFAIL("loaded");
        } catch (const ModelError& e) {
            qInfo("%s", e.what());
            QVERIFY(kKinds.count(kind.toStdString()));
            QCOMPARE(int(e.kind()), int(kKinds.at(kind.toStdString())));
            QVERIFY2(QString(e.what()).contains(text), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestArchitectures)
#include "test_architectures.moc"
