// The two RoPE layouts describe one model: make_hf.py writes a tiny Llama as a Hugging Face
// folder (Q/K rows in rotate-half order) and, through the `gguf` package, as the GGUF that
// llama.cpp's converter makes of it (Q/K rows permuted for interleaved pairs), and computes the
// logits in float64 with transformers' rotate-half formulation. The engine must reproduce them
// from both files.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/backend/backend.h"
#include "core/engine/transformer.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/hf_model_loader.h"
#include "core/model/mapped_file.h"
#include "tests/testdata.h"

using namespace kvw;

namespace {

struct Reference {
    std::vector<int32_t> ids;
    std::vector<double> logits;
};

Reference read_reference() {
    std::ifstream in(test::testdata_path("hf/rope_reference.txt"));
    if (!in) qFatal("cannot open rope_reference.txt");
    Reference r;
    std::string line;
    std::getline(in, line);
    std::stringstream ids(line);
    for (int32_t id; ids >> id;) r.ids.push_back(id);
    std::getline(in, line);
    std::stringstream logits(line);
    for (double x; logits >> x;) r.logits.push_back(x);
    return r;
}

// Logits of the last token after one pass over `ids` at positions 0..n-1.
std::vector<float> logits_of(std::shared_ptr<const Model> model, const std::vector<int32_t>& ids) {
    auto backend = make_cpu_backend(1);
    const Transformer transformer(std::move(model), *backend);
    std::vector<Item> items;
    std::vector<int32_t> positions;
    for (size_t i = 0; i < ids.size(); ++i) {
        items.push_back(Item::of_token(ids[i]));
        positions.push_back(int32_t(i));
    }
    const std::vector<LayerContext> empty(size_t(transformer.model().config.n_layers));
    return transformer.forward(items, positions, empty).logits;
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

}  // namespace

class TestRopeLayouts : public QObject {
    Q_OBJECT

    Reference ref_;

private slots:
    void initTestCase() {
        ref_ = read_reference();
        QVERIFY(ref_.ids.size() >= 8);
        QCOMPARE(int(ref_.logits.size()), 700);
    }

    void hf_half_split_matches_float64_reference() {
        const auto model = load_hf_model(test::testdata_path("hf/f32"));
        QVERIFY(model->config.rope_layout == RopeLayout::HalfSplit);
        const std::vector<float> logits = logits_of(model, ref_.ids);
        QCOMPARE(logits.size(), ref_.logits.size());
        const double err = relative_error(logits, ref_.logits);
        qInfo("relative error %g", err);
        QVERIFY2(err < 1e-4, qPrintable(QString("relative error %1").arg(err)));
    }

    void gguf_interleaved_matches_float64_reference() {
        const auto model = load_gguf_model(map_file(test::testdata_path("hf/tiny.gguf")));
        QVERIFY(model->config.rope_layout == RopeLayout::Interleaved);
        const std::vector<float> logits = logits_of(model, ref_.ids);
        QCOMPARE(logits.size(), ref_.logits.size());
        const double err = relative_error(logits, ref_.logits);
        qInfo("relative error %g", err);
        QVERIFY2(err < 1e-4, qPrintable(QString("relative error %1").arg(err)));
    }

    // The wrong layout for a file must not pass: this is what makes the two checks above mean
    // something about RoPE rather than about the rest of the forward pass.
    void swapped_layout_differs() {
        auto model = load_hf_model(test::testdata_path("hf/f32"));
        model->config.rope_layout = RopeLayout::Interleaved;
        const double err = relative_error(logits_of(model, ref_.ids), ref_.logits);
        QVERIFY2(err > 1e-2, qPrintable(QString("relative error %1").arg(err)));
    }
};

QTEST_APPLESS_MAIN(TestRopeLayouts)
#include "test_rope_layouts.moc"
