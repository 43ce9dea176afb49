// Architectures as data (docs/ARCHITECTURE.md §2.1): tests/data/make_arch.py writes one tiny
// random-weight model per family as a Hugging Face folder and, through the `gguf` package, as
// the GGUF llama.cpp's converter makes of it, and computes the logits in float64 with
// transformers' modelling written out in numpy. The engine must reproduce them from both files;
// a missing key or tensor, and an unknown architecture, are refused by name.
#include <QtTest>

#include <algorithm>
#include <cmath>
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
#include "tests/testdata.h"

using namespace kvw;

namespace {

struct Reference {
    std::vector<int32_t> ids;
    std::vector<double> logits;
    std::vector<int32_t> greedy;
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
    return r;
}

// Logits of the last token after one pass over `ids` at positions 0..n-1.
std::vector<float> logits_of(const Transformer& transformer, const std::vector<int32_t>& ids) {
    std::vector<Item> items;
    std::vector<int32_t> positions;
    for (size_t i = 0; i < ids.size(); ++i) {
        items.push_back(Item::of_token(ids[i]));
        positions.push_back(int32_t(i));
    }
    const std::vector<LayerContext> empty(size_t(transformer.model().config.n_layers));
    return transformer.forward(items, positions, empty).logits;
}

// Greedy continuation, each step a full pass (as the reference does it).
std::vector<int32_t> greedy_of(const Transformer& transformer, std::vector<int32_t> ids,
                               int steps) {
    std::vector<int32_t> out;
    for (int s = 0; s < steps; ++s) {
        const std::vector<float> logits = logits_of(transformer, ids);
        const int32_t next =
            int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
        out.push_back(next);
        ids.push_back(next);
    }
    return out;
}

// max |a - b| / max |b|
double relative_error(const std::vector<float>& a, const std::vector<double>& b) {
    double diff = 0.0, scale = 0.0;
    for (size_t i = 0; i < b.size(); ++i) {
        diff = std::max(diff, std::abs(double(a[i]) - b[i]));
        scale = std::max(scale, std::abs(b[i]));
    }
    return diff / scale;
}

std::shared_ptr<Model> load(const std::string& family, bool gguf) {
    const std::string dir = test::testdata_path("arch/" + family);
    return gguf ? load_gguf_model(map_file(dir + "/model.gguf")) : load_hf_model(dir + "/hf");
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
    void matches_float64_reference_data() {
        QTest::addColumn<QString>("family");
        QTest::addColumn<bool>("gguf");
        for (const char* family : {"qwen2", "qwen3", "phi3", "llama3", "linear"})
            for (const bool gguf : {false, true})
                QTest::newRow(qPrintable(QString("%1 %2").arg(family, gguf ? "gguf" : "hf")))
                    << QString(family) << gguf;
    }
    void matches_float64_reference() {
        QFETCH(QString, family);
        QFETCH(bool, gguf);
        const Reference ref = read_reference(family.toStdString());
        QVERIFY(ref.ids.size() >= 8 && !ref.greedy.empty());
        const auto model = load(family.toStdString(), gguf);
        auto backend = make_cpu_backend(1);
        const Transformer transformer(model, *backend);
        const std::vector<float> logits = logits_of(transformer, ref.ids);
        QCOMPARE(logits.size(), ref.logits.size());
        const double err = relative_error(logits, ref.logits);
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
            QVERIFY(relative_error(logits_of(t, qwen2.ids), qwen2.logits) > 1e-2);
        }
        model = load("qwen2", true);
        model->config.rope_layout = RopeLayout::Interleaved;
        {
            const Transformer t(model, *backend);
            QVERIFY(relative_error(logits_of(t, qwen2.ids), qwen2.logits) > 1e-2);
        }
        const Reference qwen3 = read_reference("qwen3");
        model = load("qwen3", false);
        model->config.qk_norm = false;
        {
            const Transformer t(model, *backend);
            QVERIFY(relative_error(logits_of(t, qwen3.ids), qwen3.logits) > 1e-2);
        }
        for (const char* family : {"llama3", "linear"}) {
            const Reference ref = read_reference(family);
            for (const bool gguf : {false, true}) {
                model = load(family, gguf);
                QVERIFY(model->config.rope_scaling != RopeScaling::None);
                model->config.rope_scaling = RopeScaling::None;
                model->config.rope_freq_divisors.clear();
                const Transformer t(model, *backend);
                QVERIFY(relative_error(logits_of(t, ref.ids), ref.logits) > 1e-2);
            }
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
        const double err = relative_error(logits_of(t, ref.ids), ref.logits);
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
