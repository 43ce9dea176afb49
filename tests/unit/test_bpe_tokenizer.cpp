// Byte-level BPE tokenizers against the Hugging Face `tokenizers` package itself:
// tests/data/make_bpe.py trains one per pre-tokenizer family (llama-bpe, qwen2, smollm, gpt-2,
// deepseek-llm), writes its tokenizer.json and the same vocabulary as a GGUF (gguf package),
// and records tokenizers' ids for texts in many scripts, emoji, digits, whitespace, code,
// contractions and added tokens. Both loaders must give exactly those ids, and decoding must
// give back the exact bytes.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/model/gguf_file.h"
#include "core/model/gguf_vocabulary.h"
#include "core/model/gguf_writer.h"
#include "core/model/hf_tokenizer_json.h"
#include "core/model/mapped_file.h"
#include "core/model/model_error.h"
#include "core/model/tokenizer.h"
#include "tests/testdata.h"

using namespace kvw;

namespace {

std::string path(const std::string& name) { return test::testdata_path("bpe/" + name); }

std::string read_text(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) qFatal("cannot open %s", file.c_str());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> families() {
    std::vector<std::string> names;
    std::ifstream in(path("families.txt"));
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) names.push_back(line);
    return names;
}

struct Case {
    std::string text;
    std::vector<int32_t> ids;
    std::vector<int32_t> ids_at_start;
};

std::vector<int32_t> ids_of(const QJsonValue& value) {
    std::vector<int32_t> ids;
    for (const QJsonValue& v : value.toArray()) ids.push_back(int32_t(v.toInt()));
    return ids;
}

std::vector<Case> read_cases(const std::string& family) {
    QFile file(QString::fromStdString(path(family + "/cases.jsonl")));
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot open %s cases", family.c_str());
    std::vector<Case> cases;
    while (!file.atEnd()) {
        const QJsonObject o = QJsonDocument::fromJson(file.readLine()).object();
        cases.push_back(
            {o["text"].toString().toStdString(), ids_of(o["ids"]), ids_of(o["ids_at_start"])});
    }
    return cases;
}

QString show(const std::vector<int32_t>& ids) {
    QStringList parts;
    for (int32_t id : ids) parts << QString::number(id);
    return "[" + parts.join(",") + "]";
}

Tokenizer from_gguf(const std::string& family) {
    const GgufFile file(map_file(path(family + "/vocab.gguf")));
    return Tokenizer(read_gguf_vocabulary(file));
}

Tokenizer from_json(const std::string& family) {
    return Tokenizer(parse_hf_tokenizer_json(read_text(path(family + "/tokenizer.json")),
                                             family + "/tokenizer.json"));
}

// llama-bpe's vocab.gguf with metadata `key` set to `value`.
std::shared_ptr<const ByteSource> gguf_with(const std::string& key, const GgufValue& value) {
    const GgufFile file(map_file(path("llama-bpe/vocab.gguf")));
    GgufWriter writer;
    for (const auto& [k, v] : file.metadata()) writer.add(k, k == key ? value : v);
    return bytes_in_memory(writer.to_bytes(), "changed.gguf");
}

// tokenizer.json of llama-bpe with the first occurrence of `from` replaced by `to`.
std::string json_with(const std::string& from, const std::string& to) {
    std::string text = read_text(path("llama-bpe/tokenizer.json"));
    const size_t at = text.find(from);
    if (at == std::string::npos) qFatal("'%s' is not in tokenizer.json", from.c_str());
    return text.replace(at, from.size(), to);
}

template <typename F>
std::optional<ModelError> error_of(F&& load) {
    try {
        load();
    } catch (const ModelError& e) {
        return e;
    }
    return std::nullopt;
}

void expect_refusal(const std::optional<ModelError>& e, ModelErrorKind kind,
                    const std::vector<std::string>& mentions) {
    QVERIFY(e.has_value());
    QCOMPARE(int(e->kind()), int(kind));
    for (const std::string& m : mentions)
        QVERIFY2(e->detail().find(m) != std::string::npos, (m + " not in: " + e->what()).c_str());
}

}  // namespace

class TestBpeTokenizer : public QObject {
    Q_OBJECT

private slots:
    void both_loaders_give_tokenizers_ids_data() {
        QTest::addColumn<QString>("family");
        QTest::addColumn<bool>("gguf");
        for (const std::string& f : families()) {
            QTest::newRow((f + " gguf").c_str()) << QString::fromStdString(f) << true;
            QTest::newRow((f + " json").c_str()) << QString::fromStdString(f) << false;
        }
    }
    void both_loaders_give_tokenizers_ids() {
        QFETCH(QString, family);
        QFETCH(bool, gguf);
        const std::string name = family.toStdString();
        const Tokenizer tok = gguf ? from_gguf(name) : from_json(name);
        QCOMPARE(tok.vocabulary().kind, TokenizerKind::ByteLevelBpe);
        const std::vector<Case> cases = read_cases(name);
        QVERIFY(cases.size() >= 900);
        int wrong = 0;
        for (const Case& c : cases) {
            const std::vector<int32_t> ids = tok.encode(c.text, false);
            const std::vector<int32_t> at_start = tok.encode(c.text, true);
            if ((ids != c.ids || at_start != c.ids_at_start) && ++wrong <= 5)
                qWarning("'%s': tokenizers %s %s, ours %s %s", c.text.c_str(),
                         qPrintable(show(c.ids)), qPrintable(show(c.ids_at_start)),
                         qPrintable(show(ids)), qPrintable(show(at_start)));
        }
        QCOMPARE(wrong, 0);
    }

    void loaders_agree_on_the_vocabulary() {
        for (const std::string& f : families()) {
            const Vocabulary a = from_gguf(f).vocabulary();
            const Vocabulary b = from_json(f).vocabulary();
            QVERIFY(a.pieces == b.pieces);
            QVERIFY(a.types == b.types);
            QCOMPARE(a.merges.size(), b.merges.size());
            if (a.add_bos) QCOMPARE(a.bos_id, b.bos_id);  // Qwen's GGUF names an unused BOS
            QCOMPARE(a.add_bos, b.add_bos);
            QCOMPARE(a.ignore_merges, b.ignore_merges);
            QVERIFY(a.merges.size() > 1000);
        }
    }

    // decode gives the text back byte for byte, also one token at a time, where a token is
    // often part of a character: the concatenation of the parts is the text again.
    void decode_gives_the_exact_bytes() {
        for (const std::string& f : families()) {
            const Tokenizer tok = from_gguf(f);
            int partial_characters = 0;
            for (const Case& c : read_cases(f)) {
                QCOMPARE(tok.decode(c.ids), c.text);
                std::string joined;
                for (const int32_t id : c.ids) {
                    const std::string part = tok.decode(std::vector<int32_t>{id});
                    partial_characters += QString::fromUtf8(part).toUtf8().toStdString() != part;
                    joined += part;
                }
                QCOMPARE(joined, c.text);
            }
            QVERIFY2(partial_characters > 50, f.c_str());
        }
    }

    // Text that is not UTF-8 (cut inside characters, random bytes) encodes and decodes back
    // to the same bytes; no reference can take such text, so the round trip is the check.
    void any_bytes_round_trip() {
        std::mt19937 rng(7);
        for (const std::string& f : families()) {
            const Tokenizer tok = from_json(f);
            const std::string utf8 = "日本語 café 😀👩‍👩‍👧 Привет 123456";
            for (size_t cut = 0; cut <= utf8.size(); ++cut) {
                const std::string text = utf8.substr(cut) + utf8.substr(0, cut / 2);
                QCOMPARE(tok.decode(tok.encode(text, false)), text);
            }
            for (int i = 0; i < 200; ++i) {
                std::string bytes(size_t(rng() % 40), '\0');
                for (char& b : bytes) b = char(rng() % 256);
                QCOMPARE(tok.decode(tok.encode(bytes, false)), bytes);
            }
        }
    }

    // Runs far longer than any pattern's repeats meet in real text: the regular-expression
    // engine must neither run out of stack nor give up.
    void long_runs_encode() {
        for (const std::string& f : families()) {
            const Tokenizer tok = from_json(f);
            for (const std::string_view unit : {" ", "7", "a", "\n", "日", "!", " \t"}) {
                std::string text;
                while (text.size() < 300000) text += unit;
                text += "x";
                QCOMPARE(tok.decode(tok.encode(text, false)), text);
            }
        }
    }

    void piece_text_reads_well() {
        const Tokenizer tok = from_gguf("gpt-2");
        const Vocabulary& v = tok.vocabulary();
        auto id_of = [&](const std::string& piece) {
            const auto it = std::find(v.pieces.begin(), v.pieces.end(), piece);
            return it == v.pieces.end() ? -1 : int32_t(it - v.pieces.begin());
        };
        QCOMPARE(tok.piece_text(id_of("\xC4\xA0")), std::string(" "));       // Ġ
        QCOMPARE(tok.piece_text(id_of("\xC4\x8A")), std::string("\n"));      // Ċ
        QCOMPARE(tok.piece_text(id_of("\xC3\xA6")), std::string("<0xE6>"));  // æ: byte 0xE6
        QCOMPARE(tok.piece_text(id_of("<|endoftext|>")), std::string("<|endoftext|>"));
        const std::vector<int32_t> ids = tok.encode("And God", false);
        QCOMPARE(tok.piece_text(ids.back()), std::string(" God"));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, tok.piece_text(v.size()));
    }

    void unknown_pre_tokenizer_is_refused_by_name() {
        const auto e = error_of([] {
            read_gguf_vocabulary(GgufFile(gguf_with("tokenizer.ggml.pre", std::string("tekken"))));
        });
        expect_refusal(e, ModelErrorKind::BadTokenizer,
                       {"tokenizer.ggml.pre", "tekken", "llama-bpe", "qwen2", "smollm", "gpt-2",
                        "deepseek-llm"});
    }

    void broken_merges_are_refused_by_name_data() {
        QTest::addColumn<QString>("merge");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("one piece") << "Ġ"
                                   << "not two pieces";
        QTest::newRow("three pieces") << "a b c"
                                      << "not two pieces";
        QTest::newRow("unknown piece") << "Ġ zzqzz"
                                       << "'zzqzz' is not in the vocabulary";
        QTest::newRow("joined not a piece") << "Ġ Ġ"
                                            << "the joined piece 'ĠĠ'";
    }
    void broken_merges_are_refused_by_name() {
        QFETCH(QString, merge);
        QFETCH(QString, mentions);
        const GgufFile file(map_file(path("llama-bpe/vocab.gguf")));
        std::vector<GgufValue> merges = file.get_array("tokenizer.ggml.merges").values();
        merges[3] = merge.toStdString();
        const GgufArray changed(uint32_t(GgufValueType::String), merges);
        const auto e = error_of(
            [&] { read_gguf_vocabulary(GgufFile(gguf_with("tokenizer.ggml.merges", changed))); });
        expect_refusal(e, ModelErrorKind::BadTokenizer,
                       {"tokenizer.ggml.merges[3]", mentions.toStdString()});
        QCOMPARE(e->file(), std::string("changed.gguf"));
    }

    void missing_keys_are_named() {
        const GgufFile file(map_file(path("llama-bpe/vocab.gguf")));
        for (const std::string_view key : {"tokenizer.ggml.pre", "tokenizer.ggml.merges"}) {
            GgufWriter writer;
            for (const auto& [k, v] : file.metadata())
                if (k != key) writer.add(k, v);
            const auto source = bytes_in_memory(writer.to_bytes(), "without.gguf");
            expect_refusal(error_of([&] { read_gguf_vocabulary(GgufFile(source)); }),
                           ModelErrorKind::MissingMetadata, {std::string(key)});
        }
    }

    void bad_tokenizer_json_is_refused_by_name_data() {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("merge of an unknown piece")
            << "\"merges\": [\n      ["
            << "\"merges\": [\n      [\"zzqzz\", \"a\"], ["
            << "model.merges[0] ('zzqzz', 'a'): 'zzqzz' is not in the vocabulary";
        QTest::newRow("merge not a pair") << "\"merges\": [\n      ["
                                          << "\"merges\": [\n      [\"a\"], ["
                                          << "model.merges[0]";
        QTest::newRow("regex PCRE2 refuses") << "\"Regex\": \""
                                             << "\"Regex\": \"(?<"
                                             << "refused by PCRE2";
        QTest::newRow("other split behaviour") << "\"behavior\": \"Isolated\""
                                               << "\"behavior\": \"MergedWithNext\""
                                               << "MergedWithNext";
        QTest::newRow("unsupported pre-tokenizer") << "\"type\": \"Split\""
                                                   << "\"type\": \"Whitespace\""
                                                   << "\"Whitespace\" pre-tokenizer";
        QTest::newRow("prefix space") << "\"add_prefix_space\": false"
                                      << "\"add_prefix_space\": true"
                                      << "add_prefix_space";
        QTest::newRow("other normalizer") << "\"normalizer\": null"
                                          << "\"normalizer\": {\"type\": \"NFKC\"}"
                                          << "NFKC";
    }
    void bad_tokenizer_json_is_refused_by_name() {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, mentions);
        const std::string text = json_with(from.toStdString(), to.toStdString());
        const auto e = error_of([&] { parse_hf_tokenizer_json(text, "bad/tokenizer.json"); });
        expect_refusal(e, ModelErrorKind::BadTokenizer, {mentions.toStdString()});
        QCOMPARE(e->file(), std::string("bad/tokenizer.json"));
    }
};

QTEST_APPLESS_MAIN(TestBpeTokenizer)
#include "test_bpe_tokenizer.moc"
