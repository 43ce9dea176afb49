// Keys of the wrong JSON type, or missing, in config.json, tokenizer.json, trace headers and
// trace events (and numbers beyond a double, there and in action lists): each is a typed error
// that names the file, the key and (NDJSON) the line, never nlohmann's own
// "[json.exception...]" text.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/hf_config.h"
#include "core/model/hf_tokenizer_json.h"
#include "core/model/model_error.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "core/session/trace.h"
#include "core/session/trace_events.h"
#include "core/state/action_json.h"
#include "tests/unit/error_checks.h"

using namespace kvw;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool leaks_nlohmann(const std::string& text) { return test::contains(text, "json.exception"); }

json good_config() {
    return {{"architectures", {"LlamaForCausalLM"}},
            {"model_type", "llama"},
            {"hidden_size", 64},
            {"num_hidden_layers", 2},
            {"num_attention_heads", 4},
            {"intermediate_size", 128},
            {"vocab_size", 6}};
}

json good_tokenizer() {
    return {
        {"added_tokens",
         {{{"id", 0}, {"content", "<unk>"}, {"special", true}},
          {{"id", 1}, {"content", "<s>"}, {"special", true}},
          {{"id", 2}, {"content", "</s>"}, {"special", true}}}},
        {"normalizer",
         {{"type", "Sequence"}, {"normalizers", {{{"type", "Prepend"}, {"prepend", "\u2581"}}}}}},
        {"model",
         {{"type", "BPE"},
          {"unk_token", "<unk>"},
          {"byte_fallback", true},
          {"vocab", {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}, {"a", 3}, {"b", 4}, {"ab", 5}}},
          {"merges", {"a b"}}}}};
}

// A trace file: the header of default options with `header_edit` applied, then `events`.
std::string write_trace(const QTemporaryDir& dir, const std::function<void(json&)>& header_edit,
                        const std::vector<std::string>& events) {
    json header = trace_header(SessionOptions{});
    header_edit(header);
    const std::string path = (fs::path(dir.path().toStdString()) / "t.ndjson").string();
    std::ofstream out(path, std::ios::binary);
    out << header.dump() << "\n";
    for (const std::string& e : events) out << e << "\n";
    return path;
}

struct TraceFault {
    size_t line;
    std::string file;
    std::string what;
};

std::optional<TraceFault> replay_fault(const std::string& path) {
    try {
        replay_trace(Trace::read(path));
    } catch (const TraceError& e) {
        return TraceFault{e.line(), e.file(), e.what()};
    }
    return std::nullopt;
}

}  // namespace

class TestTypedJsonErrors : public QObject {
    Q_OBJECT

private slots:
    void config_json_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::newRow("model_type number") << "model_type"
                                           << "5";
        QTest::newRow("_name_or_path array") << "_name_or_path"
                                             << "[1]";
        QTest::newRow("architectures string") << "architectures"
                                              << "\"LlamaForCausalLM\"";
        QTest::newRow("hidden_size string") << "hidden_size"
                                            << "\"64\"";
        QTest::newRow("hidden_size float") << "hidden_size"
                                           << "64.5";
        QTest::newRow("rope_theta string") << "rope_theta"
                                           << "\"1e4\"";
        QTest::newRow("tie_word_embeddings string") << "tie_word_embeddings"
                                                    << "\"no\"";
    }
    void config_json() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        json config = good_config();
        if (key != "architectures") config.erase("architectures");  // model_type is then read
        config[key.toStdString()] = json::parse(value.toStdString());
        const std::string text = config.dump();
        const auto e = test::model_error_of([&] { parse_hf_config(text, "m/config.json"); });
        QVERIFY2(e.has_value(), "accepted");
        QCOMPARE(e->kind(), ModelErrorKind::BadMetadata);
        QCOMPARE(e->file(), std::string("m/config.json"));
        QVERIFY2(test::contains(e->detail(), "\"" + key.toStdString() + "\""), e->what());
        QVERIFY2(!leaks_nlohmann(e->what()), e->what());
    }

    void config_json_missing_key() {
        json config = good_config();
        config.erase("vocab_size");
        const auto e =
            test::model_error_of([&] { parse_hf_config(config.dump(), "m/config.json"); });
        QVERIFY(e.has_value());
        QCOMPARE(e->kind(), ModelErrorKind::MissingMetadata);
        QVERIFY2(test::contains(e->detail(), "\"vocab_size\""), e->what());
    }

    void tokenizer_json_data() {
        QTest::addColumn<QString>("pointer");  // JSON pointer of the value to replace
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("key");  // how the error must name it
        QTest::newRow("byte_fallback") << "/model/byte_fallback"
                                       << "\"yes\""
                                       << "model.byte_fallback";
        QTest::newRow("special") << "/added_tokens/1/special"
                                 << "1"
                                 << "added_tokens[1].special";
        QTest::newRow("content") << "/added_tokens/2/content"
                                 << "2"
                                 << "added_tokens[2].content";
        QTest::newRow("unk_token") << "/model/unk_token"
                                   << "{}"
                                   << "model.unk_token";
        QTest::newRow("vocab id") << "/model/vocab/ab"
                                  << "\"5\""
                                  << "model.vocab.ab";
        QTest::newRow("normalizer type") << "/normalizer/normalizers/0/type"
                                         << "7"
                                         << "normalizer.normalizers[0].type";
        QTest::newRow("model type") << "/model/type"
                                    << "[]"
                                    << "model.type";
        QTest::newRow("added_tokens") << "/added_tokens"
                                      << "{}"
                                      << "added_tokens";
    }
    void tokenizer_json() {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, key);
        json tok = good_tokenizer();
        tok[json::json_pointer(pointer.toStdString())] = json::parse(value.toStdString());
        const std::string text = tok.dump();
        const auto e =
            test::model_error_of([&] { parse_hf_tokenizer_json(text, "m/tokenizer.json"); });
        QVERIFY2(e.has_value(), "accepted");
        QCOMPARE(e->kind(), ModelErrorKind::BadTokenizer);
        QCOMPARE(e->file(), std::string("m/tokenizer.json"));
        QVERIFY2(test::contains(e->detail(), "\"" + key.toStdString() + "\""), e->what());
        QVERIFY2(!leaks_nlohmann(e->what()), e->what());
    }

    void tokenizer_config_json() {
        const std::string tok = good_tokenizer().dump();
        QVERIFY(parse_hf_tokenizer_json(tok, "t.json").size() == 6);  // the base is sound
        for (const char* config : {R"({"add_bos_token": "yes"})", R"({"bos_token": 1})",
                                   R"({"eos_token": {"content": false}})"}) {
            const auto e = test::model_error_of(
                [&] { parse_hf_tokenizer_json(tok, "t.json", config, "m/tokenizer_config.json"); });
            QVERIFY2(e.has_value(), config);
            QCOMPARE(e->file(), std::string("m/tokenizer_config.json"));
            QVERIFY2(!leaks_nlohmann(e->what()), e->what());
        }
    }

    void trace_header_data() {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("value");  // empty: the key is removed
        QTest::addColumn<QString>("key");
        QTest::newRow("no capacity") << "/capacity"
                                     << ""
                                     << "capacity";
        QTest::newRow("capacity string") << "/capacity"
                                         << "\"64\""
                                         << "capacity";
        QTest::newRow("guard string") << "/guard"
                                      << "\"yes\""
                                      << "guard";
        QTest::newRow("no sampling") << "/sampling"
                                     << ""
                                     << "sampling";
        QTest::newRow("top_k float") << "/sampling/top_k"
                                     << "1.5"
                                     << "sampling.top_k";
        QTest::newRow("seed negative") << "/sampling/seed"
                                       << "-1"
                                       << "sampling.seed";
        QTest::newRow("decay string") << "/brightness/decay"
                                      << "\"x\""
                                      << "brightness.decay";
        QTest::newRow("numerics number") << "/numerics"
                                         << "5"
                                         << "numerics";
        QTest::newRow("brightness array") << "/brightness"
                                          << "[]"
                                          << "brightness";
    }
    void trace_header() {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, key);
        QTemporaryDir dir;
        const std::string path = write_trace(dir,
                                             [&](json& h) {
                                                 const json::json_pointer p(pointer.toStdString());
                                                 if (value.isEmpty())
                                                     h[p.parent_pointer()].erase(p.back());
                                                 else
                                                     h[p] = json::parse(value.toStdString());
                                             },
                                             {});
        const auto fault = replay_fault(path);
        QVERIFY2(fault.has_value(), "replayed");
        QCOMPARE(fault->line, size_t(1));
        QCOMPARE(fault->file, path);
        QVERIFY2(test::contains(fault->what, "\"" + key.toStdString() + "\""), fault->what.c_str());
        QVERIFY2(!leaks_nlohmann(fault->what), fault->what.c_str());
    }

    void trace_events_data() {
        QTest::addColumn<QString>("event");
        QTest::addColumn<QString>("key");
        QTest::newRow("no event") << R"({"prompt":"a"})"
                                  << "event";
        QTest::newRow("event number") << R"({"event":7})"
                                      << "event";
        QTest::newRow("prompt number") << R"({"event":"start","prompt":5})"
                                       << "prompt";
        QTest::newRow("no prompt") << R"({"event":"start"})"
                                   << "prompt";
        QTest::newRow("guard string") << R"({"event":"set_guard","on":"yes"})"
                                      << "on";
        QTest::newRow("beyond double") << R"({"event":"set_guard","on":1e999})"
                                       << "on";
        QTest::newRow("no row") << R"({"event":"desync","layer":0})"
                                << "row";
        QTest::newRow("name number") << R"({"event":"set_proposer","name":1})"
                                     << "name";
        QTest::newRow("hash number")
            << R"({"event":"set_proposer","name":"manual","state_hash":12})"
            << "state_hash";
    }
    void trace_events() {
        QFETCH(QString, event);
        QFETCH(QString, key);
        QTemporaryDir dir;
        // The faulty event stands on line 4: a blank line is skipped but still counted.
        const std::string path = write_trace(
            dir, [](json&) {}, {R"({"event":"set_guard","on":true})", "", event.toStdString()});
        const auto fault = replay_fault(path);
        QVERIFY2(fault.has_value(), "replayed");
        QCOMPARE(fault->line, size_t(4));
        QCOMPARE(fault->file, path);
        QVERIFY2(test::contains(fault->what, "\"" + key.toStdString() + "\""), fault->what.c_str());
        QVERIFY2(!leaks_nlohmann(fault->what), fault->what.c_str());
    }

    // nlohmann throws out_of_range, not parse_error, for a literal beyond a double.
    void action_list_number_beyond_double() {
        try {
            parse_action_list(
                "[{\"action\":\"add\",\"token_id\":1}, "
                "{\"action\":\"add\",\n\"token_id\":-1e999}]");
            QFAIL("parsed");
        } catch (const ActionParseError& e) {
            QCOMPARE(e.kind(), ActionParseErrorKind::NumberOutOfRange);
            QCOMPARE(e.field(), std::string("token_id"));
            QVERIFY2(!leaks_nlohmann(e.what()), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestTypedJsonErrors)
#include "test_typed_json_errors.moc"
