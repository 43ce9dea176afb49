// The Hugging Face folder loader against folders written by the `safetensors` package
// (tests/data/make_hf.py): every tensor's bytes equal the numpy arrays saved beside, the
// sharded folder equals the single file, config fields are read, and each defect gets its
// typed error naming the file and the tensor.
#include <QtTest>

#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/backend/backend.h"
#include "core/engine/transformer.h"
#include "core/model/hf_config.h"
#include "core/model/hf_model_loader.h"
#include "core/model/model_error.h"
#include "core/model/safetensors_file.h"
#include "tests/testdata.h"

using namespace kvw;

namespace {

std::string folder(const std::string& name) { return test::testdata_path("hf/" + name); }

std::vector<uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) qFatal("cannot open %s", path.c_str());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<const WeightTensor*> all_tensors(const ModelWeights& w) {
    std::vector<const WeightTensor*> out = {&w.token_embd, &w.output_norm, &w.output};
    for (const LayerWeights& l : w.layers)
        for (const WeightTensor* t :
             {&l.attn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.ffn_norm, &l.w_gate, &l.w_up, &l.w_down})
            out.push_back(t);
    return out;
}

bool same_bytes(const WeightTensor& t, const std::vector<uint8_t>& expected) {
    return t.bytes() == expected.size() && std::memcmp(t.data, expected.data(), t.bytes()) == 0;
}

ModelErrorKind kind_named(const std::string& name) {
    static const std::pair<const char*, ModelErrorKind> kinds[] = {
        {"Truncated", ModelErrorKind::Truncated},
        {"BadMetadata", ModelErrorKind::BadMetadata},
        {"UnknownTensorType", ModelErrorKind::UnknownTensorType},
        {"TensorDataPastEnd", ModelErrorKind::TensorDataPastEnd},
        {"ShapeMismatch", ModelErrorKind::ShapeMismatch},
        {"MissingTensor", ModelErrorKind::MissingTensor},
        {"VocabMismatch", ModelErrorKind::VocabMismatch},
        {"NonFiniteWeight", ModelErrorKind::NonFiniteWeight},
    };
    for (const auto& [n, k] : kinds)
        if (name == n) return k;
    qFatal("unknown error kind %s in bad_cases.txt", name.c_str());
}

// Runs `load` and returns the ModelError it throws (fails the test when it throws none).
template <typename F>
std::optional<ModelError> error_of(F load) {
    try {
        load();
    } catch (const ModelError& e) {
        return e;
    }
    return std::nullopt;
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A real TinyLlama-1.1B-Chat-v1.0 config.json.
const char* kTinyLlamaConfig = R"({
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "bos_token_id": 1,
  "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02,
  "intermediate_size": 5632, "max_position_embeddings": 2048, "model_type": "llama",
  "num_attention_heads": 32, "num_hidden_layers": 22, "num_key_value_heads": 4,
  "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 10000.0,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.35.0",
  "use_cache": true, "vocab_size": 32000})";

}  // namespace

class TestHfLoader : public QObject {
    Q_OBJECT

private slots:
    void config_fields() {
        const auto model = load_hf_model(folder("f32"));
        const ModelConfig& c = model->config;
        QCOMPARE(c.architecture, std::string("llama"));
        QCOMPARE(c.name, std::string("kvw-tiny-hf"));
        QCOMPARE(c.n_layers, 2);
        QCOMPARE(c.n_embd, 64);
        QCOMPARE(c.n_heads, 4);
        QCOMPARE(c.n_kv_heads, 2);
        QCOMPARE(c.head_dim, 16);
        QCOMPARE(c.n_ff, 128);
        QCOMPARE(c.vocab_size, 700);  // the trainer's vocab_size
        QCOMPARE(c.max_context, 256);
        QCOMPARE(c.rope_theta, 10000.0f);
        QCOMPARE(c.rms_eps, 1e-5f);
        QVERIFY(c.rope_layout == RopeLayout::HalfSplit);
        QCOMPARE(model->tokenizer.size(), 700);
        QCOMPARE(model->file_type, std::string("safetensors f32"));
        QCOMPARE(model->source, folder("f32"));
        QCOMPARE(int(model->weights.layers.size()), 2);
    }

    void tinyllama_config() {
        const HfConfig hf = parse_hf_config(kTinyLlamaConfig, "config.json");
        QCOMPARE(hf.model.n_embd, 2048);
        QCOMPARE(hf.model.n_layers, 22);
        QCOMPARE(hf.model.n_heads, 32);
        QCOMPARE(hf.model.n_kv_heads, 4);
        QCOMPARE(hf.model.head_dim, 64);
        QCOMPARE(hf.model.n_ff, 5632);
        QCOMPARE(hf.model.vocab_size, 32000);
        QCOMPARE(hf.model.max_context, 2048);
        QCOMPARE(hf.model.rms_eps, 1e-5f);
        QVERIFY(!hf.tie_word_embeddings);
    }

    void config_errors_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("mentions");
        const QString base = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
            "intermediate_size": 128, "vocab_size": 700 %1})";
        QTest::newRow("rope_scaling") << base.arg(R"(, "rope_scaling": {"type": "yarn",
            "factor": 2.0})") << int(ModelErrorKind::BadMetadata)
                                      << "rope_scaling";
        QTest::newRow("not llama") << QString(R"({"architectures": ["GPT2LMHeadModel"],
            "model_type": "gpt2"})")
                                   << int(ModelErrorKind::BadMetadata) << "GPT2LMHeadModel";
        QTest::newRow("no hidden_size") << QString(R"({"model_type": "llama",
            "num_hidden_layers": 2})") << int(ModelErrorKind::MissingMetadata)
                                        << "hidden_size";
        QTest::newRow("gqa") << base.arg(R"(, "num_key_value_heads": 3)")
                             << int(ModelErrorKind::BadMetadata) << "num_key_value_heads";
        QTest::newRow("negative") << base.arg(R"(, "intermediate_size": -1)")
                                  << int(ModelErrorKind::BadMetadata) << "intermediate_size";
        QTest::newRow("tie type") << base.arg(R"(, "tie_word_embeddings": "yes")")
                                  << int(ModelErrorKind::BadMetadata) << "tie_word_embeddings";
        QTest::newRow("bad json") << QString(R"({"hidden_size": 64,,})")
                                  << int(ModelErrorKind::BadMetadata) << "JSON";
    }
    void config_errors() {
        QFETCH(QString, json);
        QFETCH(int, kind);
        QFETCH(QString, mentions);
        // nlohmann keeps the last of duplicate keys, which is how the rows override `base`.
        const std::string text = json.toStdString();
        const auto e = error_of([&] { parse_hf_config(text, "dir/config.json"); });
        QVERIFY(e.has_value());
        QCOMPARE(int(e->kind()), kind);
        QCOMPARE(e->file(), std::string("dir/config.json"));
        QVERIFY2(e->detail().find(mentions.toStdString()) != std::string::npos, e->what());
    }

    void values_exact_data() {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<int>("expected_dtype");
        QTest::newRow("f32") << "f32" << int(DType::F32);
        QTest::newRow("f16") << "f16" << int(DType::F16);
        QTest::newRow("bf16") << "bf16" << int(DType::BF16);
    }
    void values_exact() {
        QFETCH(QString, dtype);
        QFETCH(int, expected_dtype);
        const std::string d = dtype.toStdString();
        const auto model = load_hf_model(folder(d));
        QCOMPARE(model->file_type, "safetensors " + d);
        for (const WeightTensor* t : all_tensors(model->weights)) {
            QVERIFY2(int(t->dtype) == expected_dtype, t->name.c_str());
            // Zero copy: 16-bit weights (and aligned f32) share the one mapping.
            QVERIFY2(t->owner == model->weights.token_embd.owner, t->name.c_str());
            QVERIFY2(reinterpret_cast<uintptr_t>(t->data) % dtype_size(t->dtype) == 0,
                     t->name.c_str());
            const auto expected = read_bytes(folder("expected/" + d + "/" + t->name + ".bin"));
            QVERIFY2(same_bytes(*t, expected), t->name.c_str());
        }
        QCOMPARE(model->weights.output.name, std::string("lm_head.weight"));
        QVERIFY(model->weights.output.data != model->weights.token_embd.data);
    }

    void weights_outlive_model() {
        WeightTensor kept;
        {
            const auto model = load_hf_model(folder("bf16"));
            kept = model->weights.layers[1].w_down;
        }
        const auto expected =
            read_bytes(folder("expected/bf16/model.layers.1.mlp.down_proj.weight.bin"));
        QVERIFY(same_bytes(kept, expected));
    }

    void shapes() {
        const auto model = load_hf_model(folder("f32"));
        const ModelWeights& w = model->weights;
        QCOMPARE(w.token_embd.rows, int64_t(700));
        QCOMPARE(w.token_embd.cols, int64_t(64));
        QCOMPARE(w.output_norm.rows, int64_t(1));
        QCOMPARE(w.output_norm.cols, int64_t(64));
        QCOMPARE(w.layers[0].wk.rows, int64_t(32));  // 2 KV heads x 16
        QCOMPARE(w.layers[0].wo.cols, int64_t(64));
        QCOMPARE(w.layers[1].w_down.rows, int64_t(64));
        QCOMPARE(w.layers[1].w_down.cols, int64_t(128));
    }

    void sharded_equals_single() {
        const auto single = load_hf_model(folder("f32"));
        const auto sharded = load_hf_model(folder("sharded"));
        const auto a = all_tensors(single->weights);
        const auto b = all_tensors(sharded->weights);
        QCOMPARE(a.size(), b.size());
        std::set<const void*> owners;
        for (size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(b[i]->name, a[i]->name);
            QCOMPARE(b[i]->rows, a[i]->rows);
            QCOMPARE(b[i]->cols, a[i]->cols);
            QVERIFY2(std::memcmp(a[i]->data, b[i]->data, a[i]->bytes()) == 0, a[i]->name.c_str());
            owners.insert(b[i]->owner.get());
        }
        QCOMPARE(owners.size(), size_t(2));  // each shard mapped once
    }

    // Data at 2 mod 4 in the file: f32 tensors are copied to aligned memory, values intact.
    void misaligned_f32_is_copied() {
        const auto model = load_hf_model(folder("misaligned_f32"));
        for (const WeightTensor* t : all_tensors(model->weights)) {
            QVERIFY2(reinterpret_cast<uintptr_t>(t->data) % 4 == 0, t->name.c_str());
            const auto expected = read_bytes(folder("expected/f32/" + t->name + ".bin"));
            QVERIFY2(same_bytes(*t, expected), t->name.c_str());
        }
    }

    void tied_embeddings() {
        const auto model = load_hf_model(folder("tied"));
        QCOMPARE(model->weights.output.data, model->weights.token_embd.data);
        QCOMPARE(model->weights.output.rows, int64_t(700));
    }

    void safetensors_metadata() {
        const SafetensorsFile file = SafetensorsFile::open(folder("f32/model.safetensors"));
        QCOMPARE(file.metadata().at("format"), std::string("pt"));
        const SafetensorsTensor* t = file.find("model.layers.0.self_attn.k_proj.weight");
        QVERIFY(t != nullptr);
        QCOMPARE(t->shape, (std::vector<int64_t>{32, 64}));
        QCOMPARE(t->size, uint64_t(32 * 64 * 4));
        QVERIFY(file.find("model.layers.9.self_attn.k_proj.weight") == nullptr);
    }

    void missing_folder() {
        const auto e = error_of([] { load_hf_model(folder("no_such_folder")); });
        QVERIFY(e.has_value());
        QCOMPARE(e->kind(), ModelErrorKind::CannotOpen);
    }

    void bad_inputs_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("tensor");
        std::ifstream in(folder("bad_cases.txt"));
        if (!in) qFatal("cannot open bad_cases.txt");
        std::string line;
        int rows = 0;
        while (std::getline(in, line)) {
            std::vector<std::string> f;
            std::stringstream ss(line);
            std::string cell;
            while (std::getline(ss, cell, '\t')) f.push_back(cell);
            f.resize(4);
            QTest::newRow(f[0].c_str())
                << QString::fromStdString(f[0]) << QString::fromStdString(f[1])
                << QString::fromStdString(f[2]) << QString::fromStdString(f[3]);
            ++rows;
        }
        if (rows < 14) qFatal("bad_cases.txt lists only %d cases", rows);
    }
    void bad_inputs() {
        QFETCH(QString, name);
        QFETCH(QString, kind);
        QFETCH(QString, file);
        QFETCH(QString, tensor);
        const auto e = error_of([&] { load_hf_model(folder(name.toStdString())); });
        QVERIFY2(e.has_value(), "loaded without an error");
        QVERIFY2(e->kind() == kind_named(kind.toStdString()), e->what());
        QVERIFY2(ends_with(e->file(), "/" + file.toStdString()), e->what());
        QCOMPARE(e->tensor(), tensor.toStdString());
    }

    // Details a user needs to find the fault.
    void bad_input_details() {
        auto e = error_of([] { load_hf_model(folder("bad_nan")); });
        QVERIFY(e.has_value());
        QVERIFY2(e->detail().find("element 389") != std::string::npos, e->what());  // [3][5]
        e = error_of([] { load_hf_model(folder("bad_inf_f16")); });
        QVERIFY(e.has_value());
        QVERIFY2(e->detail().find("element 448") != std::string::npos, e->what());  // [7][0]
        e = error_of([] { load_hf_model(folder("bad_dtype_f64")); });
        QVERIFY(e.has_value());
        QVERIFY2(e->detail().find("F64") != std::string::npos, e->what());
        e = error_of([] { load_hf_model(folder("bad_dtype_i64")); });
        QVERIFY(e.has_value());
        QVERIFY2(e->detail().find("I64") != std::string::npos, e->what());
        e = error_of([] { load_hf_model(folder("bad_json")); });
        QVERIFY(e.has_value());
        QVERIFY(e->offset().has_value());
        const auto broken = read_bytes(folder("bad_json/broken_offset.txt"));  // make_hf.py's
        QCOMPARE(*e->offset(), std::stoull(std::string(broken.begin(), broken.end())));
        e = error_of([] { load_hf_model(folder("bad_shape")); });
        QVERIFY(e.has_value());
        QVERIFY2(e->detail().find("[128, 64]") != std::string::npos &&
                     e->detail().find("[96, 64]") != std::string::npos,
                 e->what());
        e = error_of([] { load_hf_model(folder("bad_extra_layers")); });
        QVERIFY(e.has_value());
        QVERIFY2(e->detail().find("layer 1") != std::string::npos &&
                     e->detail().find("num_hidden_layers is 1") != std::string::npos,
                 e->what());
        e = error_of([] { load_hf_model(folder("bad_vocab_tokenizer")); });
        QVERIFY(e.has_value());
        QVERIFY2(e->detail().find("700") != std::string::npos &&
                     e->detail().find("692") != std::string::npos,
                 e->what());
    }

    // A tokenizer smaller than vocab_size (Qwen's padded embeddings) gets the missing ids as
    // unused "[PAD<id>]" pieces, as llama.cpp's converter writes them; encoding never makes
    // one, not even from their own text, and the head scores every embedding row.
    void padded_vocabulary_loads() {
        const auto model = load_hf_model(folder("padded_vocab"));
        const Tokenizer& tok = model->tokenizer;
        QCOMPARE(tok.size(), 708);
        QCOMPARE(model->config.vocab_size, 708);
        for (int id = 700; id < 708; ++id) {
            QCOMPARE(tok.vocabulary().pieces[size_t(id)], "[PAD" + std::to_string(id) + "]");
            QVERIFY(tok.vocabulary().types[size_t(id)] == TokenType::Unused);
        }
        for (int32_t id : tok.encode("In the beginning [PAD700] and [PAD707]", true))
            QVERIFY2(id < 700, qPrintable(QString::number(id)));
        auto backend = make_cpu_backend(1);
        const Transformer t(model, *backend);
        const std::vector<LayerContext> empty(size_t(model->config.n_layers));
        const Item item = Item::of_token(5);
        const int32_t position = 0;
        const ForwardOutput out = t.forward(std::span<const Item>(&item, 1),
                                            std::span<const int32_t>(&position, 1), empty);
        QCOMPARE(out.logits.size(), size_t(708));
    }
};

QTEST_APPLESS_MAIN(TestHfLoader)
#include "test_hf_loader.moc"
