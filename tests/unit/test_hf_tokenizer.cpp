// tokenizer.json (laid out as transformers' LlamaConverter writes it, from a BPE model the
// sentencepiece package trained in tests/data/make_hf.py) gives a Tokenizer whose ids equal
// sentencepiece's own encoder on every recorded string.
#include <QByteArray>
#include <QtTest>

#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/hf_tokenizer_json.h"
#include "core/model/model_error.h"
#include "core/model/tokenizer.h"
#include "tests/testdata.h"

using namespace kvw;

namespace {

std::string path(const std::string& name) { return test::testdata_path("hf/" + name); }

std::string read_text(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) qFatal("cannot open %s", file.c_str());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Case {
    std::string text;
    std::vector<int32_t> ids;
};

// Lines of "hex(UTF-8 text) TAB ids separated by spaces".
std::vector<Case> read_cases() {
    std::ifstream in(path("tokenizer_cases.txt"));
    if (!in) qFatal("cannot open tokenizer_cases.txt");
    std::vector<Case> cases;
    std::string line;
    while (std::getline(in, line)) {
        const size_t tab = line.find('\t');
        Case c;
        c.text = QByteArray::fromHex(QByteArray::fromStdString(line.substr(0, tab))).toStdString();
        std::stringstream ids(line.substr(tab + 1));
        int32_t id;
        while (ids >> id) c.ids.push_back(id);
        cases.push_back(std::move(c));
    }
    return cases;
}

QString show(const std::vector<int32_t>& ids) {
    QStringList parts;
    for (int32_t id : ids) parts << QString::number(id);
    return "[" + parts.join(",") + "]";
}

std::optional<ModelError> error_of(std::string_view json) {
    try {
        parse_hf_tokenizer_json(json, "tokenizer.json");
    } catch (const ModelError& e) {
        return e;
    }
    return std::nullopt;
}

}  // namespace

class TestHfTokenizer : public QObject {
    Q_OBJECT

private slots:
    void same_ids_as_sentencepiece() {
        const Tokenizer tok(load_hf_tokenizer(path("f32")));
        const std::vector<Case> cases = read_cases();
        QVERIFY(cases.size() >= 300);
        int wrong = 0;
        for (const Case& c : cases) {
            const std::vector<int32_t> ids = tok.encode(c.text, false);
            if (ids != c.ids && ++wrong <= 10)
                qWarning("'%s': got %s, sentencepiece %s", c.text.c_str(), qPrintable(show(ids)),
                         qPrintable(show(c.ids)));
        }
        QCOMPARE(wrong, 0);
    }

    // sentencepiece's layout of a byte-fallback BPE model: <unk> <s> </s>, then <0x00>..<0xFF>.
    void vocabulary_layout() {
        const Vocabulary v = load_hf_tokenizer(path("f32"));
        QCOMPARE(v.size(), 700);
        QCOMPARE(v.unk_id, 0);
        QCOMPARE(v.bos_id, 1);
        QCOMPARE(v.eos_id, 2);
        QVERIFY(v.add_bos);
        QVERIFY(v.add_space_prefix);
        QCOMPARE(v.types[0], TokenType::Unknown);
        QCOMPARE(v.types[1], TokenType::Control);
        QCOMPARE(v.types[2], TokenType::Control);
        for (int b = 0; b < 256; ++b) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "<0x%02X>", b);
            QCOMPARE(v.pieces[size_t(3 + b)], std::string(hex));
            QCOMPARE(v.types[size_t(3 + b)], TokenType::Byte);
            QCOMPARE(v.scores[size_t(3 + b)], 0.0f);
        }
        for (int id = 259; id < v.size(); ++id) QCOMPARE(v.types[size_t(id)], TokenType::Normal);
    }

    // The newer converter output (Metaspace pre-tokenizer, merges as pairs) reads the same.
    void metaspace_form_equals_legacy() {
        const Vocabulary legacy = load_hf_tokenizer(path("f32"));
        const Vocabulary meta = parse_hf_tokenizer_json(read_text(path("tokenizer_metaspace.json")),
                                                        "tokenizer_metaspace.json");
        QVERIFY(meta.pieces == legacy.pieces);
        QVERIFY(meta.scores == legacy.scores);
        QVERIFY(meta.types == legacy.types);
        QCOMPARE(meta.add_space_prefix, legacy.add_space_prefix);
        QCOMPARE(meta.bos_id, legacy.bos_id);
    }

    void tokenizer_config_overrides() {
        const std::string tok = read_text(path("f32/tokenizer.json"));
        const Vocabulary v = parse_hf_tokenizer_json(
            tok, "tokenizer.json",
            R"({"bos_token": {"content": "</s>", "lstrip": false}, "eos_token": "<s>",
                "add_bos_token": false})",
            "tokenizer_config.json");
        QCOMPARE(v.bos_id, 2);
        QCOMPARE(v.eos_id, 1);
        QVERIFY(!v.add_bos);
    }

    void no_prefix_space() {
        const std::string json = R"({"model": {"type": "BPE", "vocab": {"<unk>": 0, "<s>": 1,
            "</s>": 2, "a": 3, "b": 4, "ab": 5}, "merges": ["a b"]},
            "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581",
                              "prepend_scheme": "never", "split": false}})";
        const Vocabulary v = parse_hf_tokenizer_json(json, "tokenizer.json");
        QVERIFY(!v.add_space_prefix);
        QCOMPARE(v.pieces[5], std::string("ab"));
        QVERIFY(v.scores[5] > v.scores[3]);  // a merged piece outranks the characters
    }

    void bad_tokenizers_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unigram") << R"({"model": {"type": "Unigram", "vocab": []}})"
                                 << "Unigram";
        QTest::newRow("merge outside vocab")
            << R"({"model": {"type": "BPE", "vocab": {"<s>": 0, "</s>": 1, "a": 2},
                  "merges": ["a a"]}})"
            << "aa";
        QTest::newRow("gap in ids")
            << R"({"model": {"type": "BPE", "vocab": {"<s>": 0, "</s>": 2}, "merges": []}})"
            << "id 1";
        QTest::newRow("no bos")
            << R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []}})"
            << "BOS";
        QTest::newRow("not json") << "{\"model\": "
                                  << "JSON";
    }
    void bad_tokenizers() {
        QFETCH(QString, json);
        QFETCH(QString, mentions);
        const std::string text = json.toStdString();
        const auto e = error_of(text);
        QVERIFY(e.has_value());
        QCOMPARE(e->kind(), ModelErrorKind::BadTokenizer);
        QCOMPARE(e->file(), std::string("tokenizer.json"));
        QVERIFY2(e->detail().find(mentions.toStdString()) != std::string::npos, e->what());
    }
};

QTEST_APPLESS_MAIN(TestHfTokenizer)
#include "test_hf_tokenizer.moc"
