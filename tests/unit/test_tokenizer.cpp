// The SentencePiece tokenizer against the sentencepiece package itself: make_tokenizer.py
// trains a BPE model with byte fallback, exports its vocabulary to GGUF and records
// sentencepiece's ids and decodes for over a thousand strings.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <string>
#include <vector>

#include "core/model/gguf_file.h"
#include "core/model/gguf_vocabulary.h"
#include "core/model/mapped_file.h"
#include "core/model/tokenizer.h"
#include "tests/testdata.h"

using namespace kvw;

namespace {

std::vector<QJsonObject> read_jsonl(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot open %s", path.c_str());
    std::vector<QJsonObject> records;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        if (!line.isEmpty()) records.push_back(QJsonDocument::fromJson(line).object());
    }
    return records;
}

std::vector<int32_t> ids_of(const QJsonValue& value) {
    std::vector<int32_t> ids;
    for (const QJsonValue& v : value.toArray()) ids.push_back(int32_t(v.toInt()));
    return ids;
}

QString show(const std::vector<int32_t>& ids) {
    QStringList parts;
    for (int32_t id : ids) parts << QString::number(id);
    return "[" + parts.join(",") + "]";
}

// Id of a piece by a plain scan of the vocabulary (not through the tokenizer's tables).
int32_t piece_id(const Vocabulary& vocab, const std::string& piece) {
    for (int i = 0; i < vocab.size(); ++i)
        if (vocab.pieces[size_t(i)] == piece) return i;
    return -1;
}

}  // namespace

class TestTokenizer : public QObject {
    Q_OBJECT

    Tokenizer tok_;

private slots:
    void initTestCase() {
        const GgufFile file(map_file(test::testdata_path("tokenizer/vocab.gguf")));
        tok_ = Tokenizer(read_gguf_vocabulary(file));
        QVERIFY(tok_.size() >= 600);
    }

    void encode_matches_sentencepiece() {
        const auto cases = read_jsonl(test::testdata_path("tokenizer/cases.jsonl"));
        QVERIFY(cases.size() >= 1000);
        int mismatches = 0;
        for (const QJsonObject& c : cases) {
            const std::string text = c["text"].toString().toStdString();
            const std::vector<int32_t> expected = ids_of(c["ids"]);
            const std::vector<int32_t> got = tok_.encode(text, false);
            if (got != expected && ++mismatches <= 5)
                qWarning() << "text" << c["text"].toString() << "sentencepiece" << show(expected)
                           << "ours" << show(got);
        }
        QCOMPARE(mismatches, 0);
    }

    void decode_matches_sentencepiece() {
        int round_trips = 0;
        for (const QJsonObject& c : read_jsonl(test::testdata_path("tokenizer/cases.jsonl"))) {
            const std::vector<int32_t> ids = ids_of(c["ids"]);
            const QString decoded = QString::fromStdString(tok_.decode(ids));
            QCOMPARE(decoded, c["decoded"].toString());
            if (c["decoded"] == c["text"]) {
                QCOMPARE(tok_.decode(tok_.encode(c["text"].toString().toStdString(), true)),
                         c["text"].toString().toStdString());
                ++round_trips;
            }
        }
        QVERIFY(round_trips >= 900);
        for (const QJsonObject& c : read_jsonl(test::testdata_path("tokenizer/decode.jsonl")))
            QCOMPARE(QString::fromStdString(tok_.decode(ids_of(c["ids"]))), c["text"].toString());
    }

    void bos_is_prepended() {
        const std::vector<int32_t> plain = tok_.encode("hello world", false);
        std::vector<int32_t> with_bos = tok_.encode("hello world", true);
        QCOMPARE(with_bos.front(), tok_.vocabulary().bos_id);
        with_bos.erase(with_bos.begin());
        QCOMPARE(with_bos, plain);
        QCOMPARE(tok_.encode("", true), std::vector<int32_t>{tok_.bos_id()});
    }

    void invalid_utf8_falls_back_to_bytes() {
        // A stray continuation byte, a truncated 2-byte sequence and an overlong '/'.
        const std::string text = "ab\x80 c\xC3 \xC0\xAF";
        const std::vector<int32_t> ids = tok_.encode(text, false);
        const Vocabulary& v = tok_.vocabulary();
        for (const char* byte : {"<0x80>", "<0xC3>", "<0xC0>", "<0xAF>"}) {
            const int32_t id = piece_id(v, byte);
            QVERIFY(id >= 0);
            QVERIFY2(std::count(ids.begin(), ids.end(), id) == 1, byte);
        }
        // sentencepiece's decode shows each malformed byte as U+FFFD.
        const std::string fffd = "\xEF\xBF\xBD";
        QCOMPARE(tok_.decode(ids), "ab" + fffd + " c" + fffd + " " + fffd + fffd);
    }

    void piece_text_shows_spaces_and_bytes() {
        const Vocabulary& v = tok_.vocabulary();
        int checked = 0;
        for (int id = 0; id < v.size(); ++id) {
            const std::string& piece = v.pieces[size_t(id)];
            const std::string shown = tok_.piece_text(id);
            if (v.types[size_t(id)] == TokenType::Normal && piece.rfind("\xE2\x96\x81", 0) == 0) {
                std::string spaced;
                for (size_t i = 0; i < piece.size();) {
                    const bool marker = piece.compare(i, 3, "\xE2\x96\x81") == 0;
                    spaced += marker ? ' ' : piece[i];
                    i += marker ? 3 : 1;
                }
                QCOMPARE(shown, spaced);
                ++checked;
            } else if (v.types[size_t(id)] != TokenType::Normal) {
                QCOMPARE(shown, piece);
            }
        }
        QVERIFY(checked > 50);
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, tok_.piece_text(v.size()));
        const std::vector<int32_t> bad{v.size()};
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, tok_.decode(bad));
    }
};

QTEST_APPLESS_MAIN(TestTokenizer)
#include "test_tokenizer.moc"
