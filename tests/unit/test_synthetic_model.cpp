// The synthetic model writer: deterministic bytes, a GGUF the loader accepts with the spec's
// configuration, weights with the documented statistics, and a vocabulary that round-trips text.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/model/gguf_file.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/synthetic_model.h"
#include "core/model/synthetic_vocabulary.h"
#include "core/model/tokenizer.h"

using namespace kvw;

namespace {

uint64_t fnv1a(const std::vector<uint8_t>& bytes) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
    return h;
}

// Reads element i of a GGUF float tensor with plain bit manipulation (not the project's
// conversion helpers).
double element(std::span<const uint8_t> data, GgufType type, size_t i) {
    if (type == GgufType::F32) {
        float f;
        std::memcpy(&f, data.data() + 4 * i, 4);
        return f;
    }
    uint16_t h;
    std::memcpy(&h, data.data() + 2 * i, 2);
    if (type == GgufType::BF16) {
        const uint32_t bits = uint32_t(h) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    const int exp = (h >> 10) & 31;
    const int mant = h & 1023;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exp == 0) return sign * std::ldexp(mant, -24);
    return sign * std::ldexp(1024 + mant, exp - 25);
}

struct Moments {
    double mean = 0, std = 0;
};

Moments moments(const GgufFile& file, const std::string& name) {
    const GgufTensorInfo* info = file.find_tensor(name);
    if (!info) qFatal("tensor %s missing", name.c_str());
    const auto data = file.tensor_bytes(*info);
    const size_t n = info->n_elements();
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; ++i) {
        const double v = element(data, info->type, i);
        sum += v;
        sq += v * v;
    }
    const double mean = sum / double(n);
    return {mean, std::sqrt(sq / double(n) - mean * mean)};
}

int32_t piece_id(const Vocabulary& vocab, const std::string& piece) {
    for (int i = 0; i < vocab.size(); ++i)
        if (vocab.pieces[size_t(i)] == piece) return i;
    return -1;
}

}  // namespace

class TestSyntheticModel : public QObject {
    Q_OBJECT

private slots:
    void specs_have_the_documented_shapes() {
        const SyntheticSpec tiny = synthetic_spec("tiny");
        QCOMPARE(tiny.config.n_layers, 4);
        QCOMPARE(tiny.config.n_embd, 256);
        QCOMPARE(tiny.config.n_heads, 8);
        QCOMPARE(tiny.config.n_kv_heads, 4);
        QCOMPARE(tiny.config.head_dim, 32);
        QCOMPARE(tiny.config.n_ff, 768);
        QCOMPARE(tiny.config.max_context, 2048);
        QCOMPARE(tiny.config.rope_theta, 10000.0f);
        QCOMPARE(tiny.weight_type, GgufType::F32);

        const SyntheticSpec big = synthetic_spec("tinyllama-shape");
        QCOMPARE(big.config.n_layers, 22);
        QCOMPARE(big.config.n_embd, 2048);
        QCOMPARE(big.config.n_heads, 32);
        QCOMPARE(big.config.n_kv_heads, 4);
        QCOMPARE(big.config.head_dim, 64);
        QCOMPARE(big.config.n_ff, 5632);
        QCOMPARE(big.config.vocab_size, 32000);
        QCOMPARE(big.weight_type, GgufType::F16);
        QCOMPARE(synthetic_spec("tinyllama-shape:f32").weight_type, GgufType::F32);
        QCOMPARE(synthetic_spec("tiny:bf16").weight_type, GgufType::BF16);

        for (const char* bad : {"small", "tiny:q4", "tiny:q5_k", "tiny:", ""}) {
            try {
                synthetic_spec(bad);
                QFAIL(bad);
            } catch (const ModelError& e) {
                QCOMPARE(e.kind(), ModelErrorKind::CannotOpen);
            }
        }
    }

    void bytes_are_deterministic_per_seed() {
        SyntheticSpec spec = synthetic_spec("tiny");
        const std::vector<uint8_t> a = write_synthetic_gguf(spec);
        const std::vector<uint8_t> b = write_synthetic_gguf(spec);
        QCOMPARE(fnv1a(a), fnv1a(b));
        QVERIFY(a == b);
        spec.seed += 1;
        const std::vector<uint8_t> c = write_synthetic_gguf(spec);
        QCOMPARE(c.size(), a.size());
        QVERIFY(fnv1a(c) != fnv1a(a));
    }

    void tiny_loads_with_its_config() {
        const SyntheticSpec spec = synthetic_spec("tiny");
        const std::shared_ptr<const Model> model = load_gguf_model(synthetic_source("tiny"));
        const ModelConfig& want = spec.config;
        const ModelConfig& got = model->config;
        QCOMPARE(got.architecture, std::string("llama"));
        QCOMPARE(got.n_layers, want.n_layers);
        QCOMPARE(got.n_embd, want.n_embd);
        QCOMPARE(got.n_heads, want.n_heads);
        QCOMPARE(got.n_kv_heads, want.n_kv_heads);
        QCOMPARE(got.head_dim, want.head_dim);
        QCOMPARE(got.n_ff, want.n_ff);
        QCOMPARE(got.vocab_size, want.vocab_size);
        QCOMPARE(got.max_context, want.max_context);
        QCOMPARE(got.rope_theta, want.rope_theta);
        QCOMPARE(got.rms_eps, want.rms_eps);
        QCOMPARE(model->tokenizer.size(), want.vocab_size);
        QCOMPARE(int(model->weights.layers.size()), want.n_layers);
        QCOMPARE(model->weights.token_embd.dtype, DType::F32);
        QCOMPARE(model->weights.layers[0].wk.rows, int64_t(want.kv_dim()));
        QCOMPARE(model->weights.layers[0].w_down.cols, int64_t(want.n_ff));
    }

    void weights_have_init_statistics_data() {
        QTest::addColumn<QString>("name");
        QTest::addRow("f32") << "tiny:f32";
        QTest::addRow("f16") << "tiny:f16";
        QTest::addRow("bf16") << "tiny:bf16";
    }
    void weights_have_init_statistics() {
        QFETCH(QString, name);
        const SyntheticSpec spec = synthetic_spec(name.toStdString());
        const GgufFile file(bytes_in_memory(write_synthetic_gguf(spec), "synthetic"));
        QCOMPARE(file.find_tensor("blk.1.attn_q.weight")->type, spec.weight_type);
        QCOMPARE(file.find_tensor("blk.1.attn_norm.weight")->type, GgufType::F32);
        QCOMPARE(int(file.tensors().size()), 9 * spec.config.n_layers + 3);
        const struct {
            const char* tensor;
            double mean, std, tolerance;  // relative to std; the norms have only 256 values
        } expected[] = {
            {"token_embd.weight", 0.0, 1.0, 0.05},
            {"blk.0.attn_q.weight", 0.0, 1.0 / std::sqrt(256.0), 0.05},
            {"blk.2.ffn_down.weight", 0.0, 1.0 / std::sqrt(768.0), 0.05},
            {"output.weight", 0.0, 1.0 / std::sqrt(256.0), 0.05},
            {"blk.3.ffn_norm.weight", 1.0, 0.05, 0.25},
        };
        for (const auto& e : expected) {
            const Moments m = moments(file, e.tensor);
            QVERIFY2(std::abs(m.mean - e.mean) < e.tolerance * e.std, e.tensor);
            QVERIFY2(std::abs(m.std / e.std - 1.0) < e.tolerance, e.tensor);
        }
    }

    void tinyllama_shape_vocabulary_and_tensors() {
        QCOMPARE(synthetic_vocabulary(32000).size(), 32000);
        SyntheticSpec spec = synthetic_spec("tinyllama-shape");
        spec.config.n_layers = 1;  // the full 22 layers are 2.2 GB; one shows every shape
        const GgufFile file(bytes_in_memory(write_synthetic_gguf(spec), "synthetic"));
        QCOMPARE(file.get_u32("llama.block_count"), 1u);
        QCOMPARE(file.get_array("tokenizer.ggml.tokens").size(), uint64_t(32000));
        QCOMPARE(file.find_tensor("token_embd.weight")->shape,
                 (std::vector<uint64_t>{2048, 32000}));
        QCOMPARE(file.find_tensor("blk.0.attn_k.weight")->shape,
                 (std::vector<uint64_t>{2048, 256}));
        QCOMPARE(file.find_tensor("blk.0.ffn_down.weight")->shape,
                 (std::vector<uint64_t>{5632, 2048}));
        QCOMPARE(file.find_tensor("output.weight")->type, GgufType::F16);
    }

    void vocabulary_round_trips_text() {
        const Vocabulary vocab = synthetic_vocabulary(synthetic_spec("tiny").config.vocab_size);
        QVERIFY(vocab.size() >= 1000);
        for (const char* byte : {"<0x00>", "<0x0A>", "<0xFF>"})
            QCOMPARE(vocab.types[size_t(piece_id(vocab, byte))], TokenType::Byte);
        const Tokenizer tok(vocab);

        // Whole words from the list come out as single "▁word" pieces.
        const std::vector<int32_t> words = tok.encode("the house by the water", false);
        std::vector<int32_t> expected;
        for (const char* w : {"the", "house", "by", "the", "water"})
            expected.push_back(piece_id(vocab, std::string("\xE2\x96\x81") + w));
        QCOMPARE(words, expected);

        for (const std::string text :
             {"Hello, World! 12345", "  leading and trailing  ", "tabs\tand\nnewlines\r\n",
              "caf\xC3\xA9 na\xC3\xAFve", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",
              "emoji \xF0\x9F\x98\x80!", "~`!@#$%^&*()_+-={}[]|\\:;\"'<>,.?/"}) {
            const std::vector<int32_t> ids = tok.encode(text, true);
            QCOMPARE(ids.front(), vocab.bos_id);
            QCOMPARE(tok.decode(ids), text);
        }
        // Characters outside the vocabulary use byte pieces: U+00E9 is C3 A9.
        const std::vector<int32_t> accent = tok.encode("\xC3\xA9", false);
        QVERIFY(std::find(accent.begin(), accent.end(), piece_id(vocab, "<0xC3>")) != accent.end());
        QVERIFY(std::find(accent.begin(), accent.end(), piece_id(vocab, "<0xA9>")) != accent.end());
    }
};

QTEST_APPLESS_MAIN(TestSyntheticModel)
#include "test_synthetic_model.moc"
