// Every JSON entry point given input nested 100,000 deep: a typed error naming the file, never
// a stack overflow. nlohmann's parser is iterative, but copying, dump() and our own walks recurse
// once per level, so these inputs crashed the loaders before depth was bounded at parse time.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "core/json/bounded_parse.h"
#include "core/model/hf_config.h"
#include "core/model/hf_model_loader.h"
#include "core/model/hf_tokenizer_json.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/safetensors_file.h"
#include "core/session/trace.h"
#include "core/state/action_json.h"
#include "tests/testdata.h"
#include "tests/unit/error_checks.h"

using namespace kvw;

namespace {

namespace fs = std::filesystem;

constexpr int kDeep = 100000;

// `[[[...1...]]]` nested `depth` arrays deep.
std::string deep_array(int depth) {
    return std::string(size_t(depth), '[') + "1" + std::string(size_t(depth), ']');
}

// {"a":{"a":...{}...}} nested `depth` objects deep.
std::string deep_object(int depth) {
    std::string text;
    for (int i = 0; i < depth; ++i) text += "{\"a\":";
    text += "{}";
    return text + std::string(size_t(depth), '}');
}

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush()) qFatal("cannot write %s", path.string().c_str());
}

// Offset of the n-th '[' or '{' (1-based); the texts here have no brackets inside strings.
size_t nth_open_bracket(const std::string& text, int n) {
    for (size_t i = 0; i < text.size(); ++i)
        if ((text[i] == '[' || text[i] == '{') && --n == 0) return i;
    qFatal("fewer brackets than asked for");
}

bool mentions_depth(const std::string& text) {
    return text.find("deeper than") != std::string::npos;
}

// A copy of the tiny HF folder whose `replaced` file is swapped for `text`.
fs::path hf_folder_with(const QTemporaryDir& dir, const std::string& replaced,
                        const std::string& text) {
    const fs::path source = test::testdata_path("hf/sharded");
    const fs::path folder = fs::path(dir.path().toStdString()) / "model";
    fs::copy(source, folder, fs::copy_options::recursive);
    write_text(folder / replaced, text);
    return folder;
}

}  // namespace

class TestJsonDepth : public QObject {
    Q_OBJECT

private slots:
    void config_json() {
        // Deep inside a key the loader reads and inside one it ignores.
        struct Deep {
            std::string value;
            size_t level_width;  // characters per level: "[" or "{\"a\":"
        };
        for (const Deep& deep : {Deep{deep_array(kDeep), 1}, Deep{deep_object(kDeep), 5}}) {
            for (const char* key : {"hidden_size", "torch_dtype"}) {
                const std::string text = "{\"architectures\": [\"LlamaForCausalLM\"], \"" +
                                         std::string(key) + "\": " + deep.value + "}";
                const auto e =
                    test::model_error_of([&] { parse_hf_config(text, "m/config.json"); });
                QVERIFY(e.has_value());
                QCOMPARE(e->kind(), ModelErrorKind::BadMetadata);
                QCOMPARE(e->file(), std::string("m/config.json"));
                QVERIFY2(mentions_depth(e->detail()), e->what());
                QVERIFY(e->offset().has_value());
                // The root object is level 1, so the value's bracket number kMaxJsonDepth is
                // the first one too deep.
                const size_t value_at = text.find(deep.value);
                QCOMPARE(*e->offset(),
                         uint64_t(value_at + size_t(kMaxJsonDepth - 1) * deep.level_width));
            }
        }
    }

    void tokenizer_json_normalizer_and_merges() {
        // A normalizer Sequence of Sequences: our own walk of it recursed once per level.
        std::string sequence;
        for (int i = 0; i < kDeep; ++i) sequence += R"({"type":"Sequence","normalizers":[)";
        sequence += R"({"type":"Lowercase"})";
        for (int i = 0; i < kDeep; ++i) sequence += "]}";
        const std::string vocab = R"({"<unk>":0,"<s>":1,"</s>":2,"a":3,"b":4,"ab":5})";
        const std::string with_normalizer =
            R"({"normalizer":)" + sequence + R"(,"model":{"type":"BPE","vocab":)" + vocab + "}}";
        const std::string with_merges = R"({"model":{"type":"BPE","vocab":)" + vocab +
                                        R"(,"merges":[)" + deep_array(kDeep) + "]}}";
        for (const std::string& text : {with_normalizer, with_merges}) {
            const auto e =
                test::model_error_of([&] { parse_hf_tokenizer_json(text, "m/tokenizer.json"); });
            QVERIFY(e.has_value());
            QCOMPARE(e->kind(), ModelErrorKind::BadTokenizer);
            QCOMPARE(e->file(), std::string("m/tokenizer.json"));
            QVERIFY2(mentions_depth(e->detail()), e->what());
        }
        // The same bound holds for tokenizer_config.json.
        const std::string good = R"({"model":{"type":"BPE","vocab":)" + vocab + "}}";
        const auto e = test::model_error_of([&] {
            parse_hf_tokenizer_json(good, "m/tokenizer.json", deep_object(kDeep),
                                    "m/tokenizer_config.json");
        });
        QVERIFY(e.has_value());
        QCOMPARE(e->file(), std::string("m/tokenizer_config.json"));
        QVERIFY2(mentions_depth(e->detail()), e->what());
    }

    void safetensors_header() {
        const std::string header = R"({"__metadata__":{"format":)" + deep_array(kDeep) + "}}";
        std::vector<uint8_t> bytes(8);
        for (int i = 0; i < 8; ++i) bytes[size_t(i)] = uint8_t(header.size() >> (8 * i));
        bytes.insert(bytes.end(), header.begin(), header.end());
        const auto e = test::model_error_of(
            [&] { SafetensorsFile(bytes_in_memory(std::move(bytes), "m/model.safetensors")); });
        QVERIFY(e.has_value());
        QCOMPARE(e->kind(), ModelErrorKind::BadMetadata);
        QCOMPARE(e->file(), std::string("m/model.safetensors"));
        QVERIFY2(mentions_depth(e->detail()), e->what());
        // The offset is in the file: 8 bytes of length, then the header's own offset.
        QCOMPARE(*e->offset(), uint64_t(8 + nth_open_bracket(header, kMaxJsonDepth + 1)));
    }

    void safetensors_index() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string index =
            R"({"metadata":{"total_size":)" + deep_array(kDeep) + R"(},"weight_map":{}})";
        const fs::path folder = hf_folder_with(dir, "model.safetensors.index.json", index);
        const auto e = test::model_error_of([&] { load_hf_model(folder.string()); });
        QVERIFY(e.has_value());
        QCOMPARE(e->kind(), ModelErrorKind::BadMetadata);
        QCOMPARE(e->file(), (folder / "model.safetensors.index.json").string());
        QVERIFY2(mentions_depth(e->detail()), e->what());
    }

    void hf_folder_config() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path folder = hf_folder_with(dir, "config.json", deep_object(kDeep));
        const auto e = test::model_error_of([&] { load_hf_model(folder.string()); });
        QVERIFY(e.has_value());
        QCOMPARE(e->file(), (folder / "config.json").string());
        QVERIFY2(mentions_depth(e->detail()), e->what());
    }

    void trace_event() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path path = fs::path(dir.path().toStdString()) / "deep.ndjson";
        write_text(path, "{\"kvw_trace\":1}\n\n{\"event\":\"inject\",\"actions\":" +
                             deep_array(kDeep) + "}\n");
        try {
            Trace::read(path);
            QFAIL("a 100,000-deep event was accepted");
        } catch (const TraceError& e) {
            QCOMPARE(e.line(), size_t(3));
            QCOMPARE(e.file(), path.string());
            QVERIFY2(mentions_depth(e.what()), e.what());
        }
    }

    void action_list() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path path = fs::path(dir.path().toStdString()) / "actions.json";
        for (const std::string& text :
             {"[" + deep_array(kDeep) + "]",
              "{\"action\":\"add\",\"token_id\":1}\n{\"action\":\"insert\",\"pos\":0,"
              "\"token_ids\":" +
                  deep_object(kDeep) + "}"}) {
            write_text(path, text);
            try {
                read_action_list_file(path);
                QFAIL("a 100,000-deep action list was accepted");
            } catch (const ActionParseError& e) {
                QCOMPARE(e.kind(), ActionParseErrorKind::TooDeep);
                QCOMPARE(e.file(), path.string());
                QVERIFY(e.line() >= 1);
                QVERIFY2(mentions_depth(e.detail()), e.what());
            }
        }
    }

    // Real inputs nest a few levels: the bound leaves room for them.
    void moderate_depth_still_parses() {
        const std::string text = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64,
            "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
            "vocab_size": 700, "task_specific_params": )" +
                                 deep_object(100) + "}";
        QCOMPARE(parse_hf_config(text, "config.json").model.n_embd, 64);
    }
};

QTEST_GUILESS_MAIN(TestJsonDepth)
#include "test_json_depth.moc"
