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
#include "tests/unit/one_pass_logits.h"

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

// The engine's logits of one pass over `ids` with `model` on the CPU backend.
std::vector<float> logits_of(std::shared_ptr<const Model> model, const std::vector<int32_t>& ids) {
    auto backend = make_cpu_backend(1);
    return test::one_pass_logits(Transformer(std::move(model), *backend), ids);
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
        const double err = test::relative_error(logits, ref_.logits);
        qInfo("relative error %g", err);
        QVERIFY2(err < 1e-4, qPrintable(QString("relative error %1").arg(err)));
    }

    void gguf_interleaved_matches_float64_reference() {
        const auto model = load_gguf_model(map_file(test::testdata_path("hf/tiny.gguf")));
        QVERIFY(model->config.rope_layout == RopeLayout::Interleaved);
        const std::vector<float> logits = logits_of(model, ref_.ids);
        QCOMPARE(logits.size(), ref_.logits.size());
        const double err = test::relative_error(logits, ref_.logits);
        qInfo("relative error %g", err);
        QVERIFY2(err < 1e-4, qPrintable(QString("relative error %1").arg(err)));
    }

    // The wrong layout for a file must not pass: this is what makes the two checks above mean
    // something about RoPE rather than about the rest of the forward pass.
    void swapped_layout_differs() {
        auto model = load_hf_model(test::testdata_path("hf/f32"));
        model->config.rope_layout = RopeLayout::Interleaved;
        const double err = test::relative_error(logits_of(model, ref_.ids), ref_.logits);
        QVERIFY2(err > 1e-2, qPrintable(QString("relative error %1").arg(err)));
    }
};

QTEST_APPLESS_MAIN(TestRopeLayouts)
#include "test_rope_layouts.moc"
