// Shapes from files are checked in 64 bits before anything is allocated: a huge head_dim no
// longer overflows n_heads × head_dim in int, every dimension has a documented limit, and a GGUF
// tensor too large to count in bytes is refused instead of wrapping to size 0. Each error names
// the key or tensor.
#include <QtTest>

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

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

using nlohmann::json;

}  // namespace

class TestModelShapeLimits : public QObject {
    Q_OBJECT

private slots:
    void hf_config_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<qint64>("value");
        QTest::addColumn<QString>("blamed");
        // 32 heads × 2^26 = 2^31: one past INT_MAX, the overflow the issue reported.
        QTest::newRow("head_dim overflows q_dim") << "head_dim" << (qint64(1) << 26) << "head_dim";
        QTest::newRow("head_dim beyond limit") << "head_dim" << qint64(1 << 16) << "head_dim";
        QTest::newRow("hidden_size") << "hidden_size" << qint64(1 << 30) << "hidden_size";
        QTest::newRow("intermediate_size")
            << "intermediate_size" << qint64(2147483647) << "intermediate_size";
        QTest::newRow("vocab_size") << "vocab_size" << qint64(1 << 30) << "vocab_size";
        QTest::newRow("num_hidden_layers")
            << "num_hidden_layers" << qint64(1000000) << "num_hidden_layers";
        QTest::newRow("max_position_embeddings")
            << "max_position_embeddings" << qint64(2147483647) << "max_position_embeddings";
    }
    void hf_config() {
        QFETCH(QString, key);
        QFETCH(qint64, value);
        QFETCH(QString, blamed);
        json config = {{"architectures", {"LlamaForCausalLM"}},
                       {"hidden_size", 4096},
                       {"num_hidden_layers", 32},
                       {"num_attention_heads", 32},
                       {"num_key_value_heads", 8},
                       {"intermediate_size", 11008},
                       {"vocab_size", 32000}};
        QVERIFY(parse_hf_config(config.dump(), "m/config.json").model.n_embd == 4096);
        config[key.toStdString()] = value;
        const auto e =
            test::model_error_of([&] { parse_hf_config(config.dump(), "m/config.json"); });
        QVERIFY2(e.has_value(), "accepted");
        QCOMPARE(e->kind(), ModelErrorKind::BadMetadata);
        QCOMPARE(e->file(), std::string("m/config.json"));
        QVERIFY2(test::contains(e->detail(), "\"" + blamed.toStdString() + "\""), e->what());
    }

    void gguf_metadata_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<uint>("value");
        QTest::newRow("block_count") << "llama.block_count" << 1000000u;
        QTest::newRow("embedding_length") << "llama.embedding_length" << (1u << 30);
        QTest::newRow("feed_forward_length") << "llama.feed_forward_length" << 2147483647u;
        QTest::newRow("context_length") << "llama.context_length" << 2147483647u;
    }
    void gguf_metadata() {
        QFETCH(QString, key);
        QFETCH(uint, value);
        const std::string k = key.toStdString();
        const auto e = test::model_error_of(
            [&] { load_gguf_model(test::tiny_gguf_with(k, uint32_t(value), "big.gguf")); });
        QVERIFY2(e.has_value(), "loaded");
        QCOMPARE(e->kind(), ModelErrorKind::BadMetadata);
        QCOMPARE(e->file(), std::string("big.gguf"));
        QVERIFY2(test::contains(e->detail(), k), e->what());
    }

    // 2^31 × 2^31 F32 elements are 2^64 bytes, which wrapped to 0 and passed the end-of-file
    // check. Our own writer computes the same wrapped size, so it writes such a file happily.
    void gguf_tensor_bytes_do_not_wrap() {
        GgufWriter writer;
        writer.add("general.architecture", std::string("llama"));
        writer.add_tensor("vast", GgufType::F32, {uint64_t(1) << 31, uint64_t(1) << 31}, {});
        std::vector<uint8_t> bytes = writer.to_bytes();
        const auto e =
            test::model_error_of([&] { GgufFile(bytes_in_memory(std::move(bytes), "vast.gguf")); });
        QVERIFY2(e.has_value(), "parsed");
        QCOMPARE(e->kind(), ModelErrorKind::BadMetadata);
        QCOMPARE(e->tensor(), std::string("vast"));
    }
};

QTEST_APPLESS_MAIN(TestModelShapeLimits)
#include "test_model_shape_limits.moc"
