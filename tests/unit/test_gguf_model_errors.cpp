// load_gguf_model on a tiny llama written by the gguf Python package (make_gguf.py): the
// config, shapes, zero-copy and dequantised weights of valid files, and for every bad file
// the typed error the generator says it must produce, with the file and the offset or tensor.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/model/gguf_model_loader.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/weights.h"
#include "tests/testdata.h"

using namespace kvw;

namespace {

std::string data(const std::string& name) { return test::testdata_path("gguf/" + name); }

QJsonObject expected() {
    QFile file(QString::fromStdString(data("tiny_expected.json")));
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot open tiny_expected.json");
    return QJsonDocument::fromJson(file.readAll()).object();
}

std::vector<uint8_t> read_bytes(const std::string& name) {
    std::ifstream in(data(name), std::ios::binary);
    if (!in) qFatal("cannot open %s", data(name).c_str());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// True when the weight's values, as the engine widens them to float, are bit-identical to
// NAME.f32.bin.
bool same_floats(const WeightTensor& w, const std::string& reference) {
    const std::vector<uint8_t> ref = read_bytes(reference);
    std::vector<float> values(size_t(w.rows * w.cols));
    for (int64_t r = 0; r < w.rows; ++r) weight_row_to_float(w, r, values.data() + r * w.cols);
    return ref.size() == values.size() * 4 &&
           std::memcmp(ref.data(), values.data(), ref.size()) == 0;
}

std::vector<const WeightTensor*> all_weights(const Model& m) {
    std::vector<const WeightTensor*> out = {&m.weights.token_embd, &m.weights.output_norm,
                                            &m.weights.output};
    for (const LayerWeights& l : m.weights.layers)
        for (const WeightTensor* t :
             {&l.attn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.ffn_norm, &l.w_gate, &l.w_up, &l.w_down})
            out.push_back(t);
    return out;
}

ModelErrorKind kind_named(const QString& name) {
    for (int k = 0; k <= int(ModelErrorKind::BadTokenizer); ++k) {
        const ModelErrorKind kind = ModelErrorKind(k);
        QString spelled;
        switch (kind) {  // the enumerator names, as the generator writes them
            case ModelErrorKind::CannotOpen: spelled = "CannotOpen"; break;
            case ModelErrorKind::BadMagic: spelled = "BadMagic"; break;
            case ModelErrorKind::UnsupportedVersion: spelled = "UnsupportedVersion"; break;
            case ModelErrorKind::Truncated: spelled = "Truncated"; break;
            case ModelErrorKind::BadMetadata: spelled = "BadMetadata"; break;
            case ModelErrorKind::MissingMetadata: spelled = "MissingMetadata"; break;
            case ModelErrorKind::UnknownTensorType: spelled = "UnknownTensorType"; break;
            case ModelErrorKind::TensorDataPastEnd: spelled = "TensorDataPastEnd"; break;
            case ModelErrorKind::ShapeMismatch: spelled = "ShapeMismatch"; break;
            case ModelErrorKind::MissingTensor: spelled = "MissingTensor"; break;
            case ModelErrorKind::VocabMismatch: spelled = "VocabMismatch"; break;
            case ModelErrorKind::NonFiniteWeight: spelled = "NonFiniteWeight"; break;
            case ModelErrorKind::BadTokenizer: spelled = "BadTokenizer"; break;
        }
        if (spelled == name) return kind;
    }
    qFatal("unknown error kind %s", qPrintable(name));
}

}  // namespace

class TestGgufModelErrors : public QObject {
    Q_OBJECT

private slots:
    void tiny_f32_loads_with_its_config() {
        const std::shared_ptr<const ByteSource> source = map_file(data("tiny_f32.gguf"));
        const std::shared_ptr<Model> m = load_gguf_model(source);
        const QJsonObject c = expected()["config"].toObject();
        QCOMPARE(m->config.architecture, std::string("llama"));
        QCOMPARE(m->config.name, std::string("tiny test llama"));
        QCOMPARE(m->config.n_layers, c["n_layers"].toInt());
        QCOMPARE(m->config.n_embd, c["n_embd"].toInt());
        QCOMPARE(m->config.n_heads, c["n_heads"].toInt());
        QCOMPARE(m->config.n_kv_heads, c["n_kv_heads"].toInt());
        QCOMPARE(m->config.head_dim, c["n_embd"].toInt() / c["n_heads"].toInt());
        QCOMPARE(m->config.n_ff, c["n_ff"].toInt());
        QCOMPARE(m->config.vocab_size, c["vocab_size"].toInt());
        QCOMPARE(m->config.max_context, c["max_context"].toInt());
        QCOMPARE(m->config.rope_theta, float(c["rope_theta"].toDouble()));
        QCOMPARE(m->config.rms_eps, float(c["rms_eps"].toDouble()));
        QVERIFY(m->config.rope_layout == RopeLayout::Interleaved);
        QCOMPARE(m->tokenizer.size(), c["vocab_size"].toInt());
        QCOMPARE(m->tokenizer.bos_id(), 1);
        QCOMPARE(m->tokenizer.eos_id(), 2);
        QCOMPARE(m->tokenizer.vocabulary().add_space_prefix, false);  // the file says so
        QCOMPARE(m->tokenizer.vocabulary().types[3], TokenType::Byte);
        QCOMPARE(m->file_type, std::string("gguf F32"));
        QCOMPARE(m->source, data("tiny_f32.gguf"));

        const int q_dim = m->config.q_dim(), kv_dim = m->config.kv_dim();
        QCOMPARE(m->weights.layers.size(), size_t(c["n_layers"].toInt()));
        const LayerWeights& l = m->weights.layers[1];
        QCOMPARE(l.wq.rows, int64_t(q_dim));
        QCOMPARE(l.wk.rows, int64_t(kv_dim));
        QCOMPARE(l.wk.cols, int64_t(m->config.n_embd));
        QCOMPARE(l.wo.cols, int64_t(q_dim));
        QCOMPARE(l.w_down.rows, int64_t(m->config.n_embd));
        QCOMPARE(l.w_down.cols, int64_t(m->config.n_ff));
        QCOMPARE(l.attn_norm.rows, int64_t(1));
        QCOMPARE(m->weights.output.rows, int64_t(m->config.vocab_size));
        QVERIFY(m->weights.output.data != m->weights.token_embd.data);  // not tied here

        // F32 weights point into the mapping (zero copy) and equal what Python wrote.
        const auto bytes = source->bytes();
        for (const WeightTensor* w : all_weights(*m)) {
            const auto* p = static_cast<const uint8_t*>(w->data);
            QVERIFY2(p >= bytes.data() && p + w->bytes() <= bytes.data() + bytes.size(),
                     w->name.c_str());
            QVERIFY(w->owner.get() == source.get());
        }
        QVERIFY(same_floats(l.w_down, "tiny_f32.blk.1.ffn_down.weight.f32.bin"));
        QVERIFY(same_floats(m->weights.output_norm, "tiny_f32.output_norm.weight.f32.bin"));
    }

    void weights_keep_the_source_alive() {
        std::shared_ptr<Model> m =
            load_gguf_model(bytes_in_memory(read_bytes("tiny_f32.gguf"), "synthetic:from-test"));
        QCOMPARE(m->source, std::string("synthetic:from-test"));
        QVERIFY(same_floats(m->weights.layers[1].w_down, "tiny_f32.blk.1.ffn_down.weight.f32.bin"));
    }

    // Q8_0 matrices stay Q8_0, pointing into the file; read back they are gguf's values.
    void q8_tied_stays_q8_0_and_reads_exactly() {
        const auto source = map_file(data("tiny_q8_tied.gguf"));
        const std::shared_ptr<Model> m = load_gguf_model(source);
        QCOMPARE(m->file_type, std::string("gguf Q8_0"));
        QVERIFY(m->weights.output.data == m->weights.token_embd.data);  // tied
        QCOMPARE(m->weights.output.rows, int64_t(m->config.vocab_size));
        const std::span<const uint8_t> file = source->bytes();
        for (const WeightTensor* w : all_weights(*m)) {
            QVERIFY(w->dtype == (w->rows == 1 ? DType::F32 : DType::Q8_0));
            const auto* p = static_cast<const uint8_t*>(w->data);
            QVERIFY2(p >= file.data() && p + w->bytes() <= file.data() + file.size(),
                     w->name.c_str());  // zero copy
        }
        QVERIFY(same_floats(m->weights.layers[0].wq, "tiny_q8_tied.blk.0.attn_q.weight.f32.bin"));
        QVERIFY(same_floats(m->weights.token_embd, "tiny_q8_tied.token_embd.weight.f32.bin"));
    }

    void bad_files_give_typed_errors_data() {
        QTest::addColumn<QString>("file");
        const QJsonObject bad = expected()["bad"].toObject();
        for (const QString& name : bad.keys()) QTest::newRow(qPrintable(name)) << name;
    }
    void bad_files_give_typed_errors() {
        QFETCH(QString, file);
        const QJsonObject e = expected()["bad"].toObject()[file].toObject();
        const std::string path = data(file.toStdString());
        try {
            load_gguf_model(map_file(path));
            QFAIL("the file was accepted");
        } catch (const ModelError& err) {
            qInfo("%s", err.what());
            QCOMPARE(model_error_kind_name(err.kind()),
                     model_error_kind_name(kind_named(e["kind"].toString())));
            QCOMPARE(err.file(), path);
            QVERIFY2(QString(err.what()).contains(QString::fromStdString(path)), err.what());
            if (e.contains("tensor")) {
                QCOMPARE(QString::fromStdString(err.tensor()), e["tensor"].toString());
                QVERIFY2(QString(err.what()).contains(e["tensor"].toString()), err.what());
            }
            if (e.contains("offset")) {
                QVERIFY2(err.offset().has_value(), err.what());
                QCOMPARE(*err.offset(), uint64_t(e["offset"].toInteger()));
            }
            if (e.contains("max_offset")) {
                QVERIFY2(err.offset().has_value(), err.what());
                QVERIFY(*err.offset() <= uint64_t(e["max_offset"].toInteger()));
            }
            if (e.contains("element"))
                QVERIFY2(err.detail().find("element " + std::to_string(e["element"].toInt())) !=
                             std::string::npos,
                         err.what());
            if (e.contains("mentions"))
                QVERIFY2(QString(err.what()).contains(e["mentions"].toString()), err.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestGgufModelErrors)
#include "test_gguf_model_errors.moc"
