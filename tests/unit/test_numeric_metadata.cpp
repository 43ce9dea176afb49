// Numerically invalid metadata is rejected at load, naming the key: a RoPE base or RMS epsilon
// that is NaN, infinite, zero or negative, a NaN tokenizer score, and config.json numbers that
// overflow to infinity or underflow to zero. Accepted, they made the model emit token 0 forever
// while every invariant still passed.
#include <QtTest>

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "core/model/gguf_file.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/gguf_writer.h"
#include "core/model/hf_config.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/synthetic_model.h"
#include "tests/unit/error_checks.h"
#include "tests/unit/tiny_gguf_with.h"

using namespace kvw;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

class TestNumericMetadata : public QObject {
    Q_OBJECT

private slots:
    void the_unchanged_copy_loads() {
        const float theta = synthetic_spec("tiny").config.rope_theta;
        const auto model =
            load_gguf_model(test::tiny_gguf_with("llama.rope.freq_base", theta, "bad.gguf"));
        QCOMPARE(model->config.rope_theta, theta);
    }

    void gguf_floats_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<double>("value");
        QTest::addColumn<bool>("as_f64");
        for (const char* key : {"llama.rope.freq_base", "llama.attention.layer_norm_rms_epsilon"}) {
            const QString k = key;
            QTest::addRow("%s NaN", key) << k << double(kNaN) << false;
            QTest::addRow("%s inf", key) << k << double(kInf) << false;
            QTest::addRow("%s -inf", key) << k << -double(kInf) << false;
            QTest::addRow("%s zero", key) << k << 0.0 << false;
            QTest::addRow("%s negative", key) << k << -1e-5 << false;
            QTest::addRow("%s f64 inf", key) << k << double(kInf) << true;
            QTest::addRow("%s f64 NaN", key) << k << double(kNaN) << true;
        }
    }
    void gguf_floats() {
        QFETCH(QString, key);
        QFETCH(double, value);
        QFETCH(bool, as_f64);
        const std::string k = key.toStdString();
        const GgufValue v = as_f64 ? GgufValue(value) : GgufValue(float(value));
        const auto e =
            test::model_error_of([&] { load_gguf_model(test::tiny_gguf_with(k, v, "bad.gguf")); });
        QVERIFY2(e.has_value(), "loaded");
        QCOMPARE(e->kind(), ModelErrorKind::BadMetadata);
        QCOMPARE(e->file(), std::string("bad.gguf"));
        QVERIFY2(test::contains(e->detail(), k), e->what());
        QVERIFY(e->offset().has_value());  // the entry's place in the file
    }

    void gguf_nan_score() {
        const int n = synthetic_spec("tiny").config.vocab_size;
        for (float bad : {kNaN, kInf, -kInf}) {
            std::vector<GgufValue> values(size_t(n), GgufValue(-1.0f));
            values[37] = bad;
            const GgufArray scores(uint32_t(GgufValueType::Float32), std::move(values));
            const auto e = test::model_error_of([&] {
                load_gguf_model(test::tiny_gguf_with("tokenizer.ggml.scores", scores, "bad.gguf"));
            });
            QVERIFY2(e.has_value(), "loaded");
            QCOMPARE(e->kind(), ModelErrorKind::BadTokenizer);
            QVERIFY2(test::contains(e->detail(), "tokenizer.ggml.scores[37]"), e->what());
        }
    }

    void config_json_numbers_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        for (const char* key : {"rope_theta", "rms_norm_eps"}) {
            QTest::addRow("%s beyond float", key) << key << "1e39";
            QTest::addRow("%s beyond double", key) << key << "1e999";
            QTest::addRow("%s negative beyond double", key) << key << "-1e999";
            QTest::addRow("%s underflows to 0", key) << key << "1e-50";
            QTest::addRow("%s zero", key) << key << "0";
            QTest::addRow("%s negative", key) << key << "-2.5";
        }
    }
    void config_json_numbers() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        const std::string text = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64,
            "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
            "vocab_size": 700, )" +
                                 ("\"" + key.toStdString() + "\": ") + value.toStdString() + "}";
        const auto e = test::model_error_of([&] { parse_hf_config(text, "m/config.json"); });
        QVERIFY2(e.has_value(), "accepted");
        QCOMPARE(e->kind(), ModelErrorKind::BadMetadata);
        QCOMPARE(e->file(), std::string("m/config.json"));
        QVERIFY2(test::contains(e->detail(), key.toStdString()), e->what());
    }
};

QTEST_APPLESS_MAIN(TestNumericMetadata)
#include "test_numeric_metadata.moc"
