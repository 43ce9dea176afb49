// The committed default model (resources/models/kjv-llama.gguf, trained by
// tools/train_default_model.py) against independent references: sentencepiece's ids for the
// held-out passages and the King James Bible's own word list (both from make_default_model.py),
// and, for attention, the share each row would get if every query attended uniformly.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

#include <memory>
#include <string>
#include <vector>

#include "core/backend/cpu_backend.h"
#include "core/engine/generator.h"
#include "core/engine/transformer.h"
#include "core/model/model_loader.h"
#include "tests/testdata.h"

using namespace kvw;

namespace {

const QString kResources = QStringLiteral(QT_TESTCASE_SOURCEDIR "/../resources");

QByteArray read_all(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot open %s", qPrintable(path));
    return file.readAll();
}

struct Passage {
    QString file;
    std::vector<int32_t> ids;  // sentencepiece's, without BOS
};

std::vector<Passage> read_passages() {
    const QString path = QString::fromStdString(test::testdata_path("default_model/passages.jsonl"));
    std::vector<Passage> passages;
    for (const QByteArray& line : read_all(path).split('\n')) {
        if (line.trimmed().isEmpty()) continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        Passage p{o["file"].toString(), {}};
        for (const QJsonValue& v : o["ids"].toArray()) p.ids.push_back(int32_t(v.toInt()));
        passages.push_back(std::move(p));
    }
    return passages;
}

QSet<QString> read_corpus_words() {
    QSet<QString> words;
    const QString path = QString::fromStdString(test::testdata_path("default_model/corpus_words.txt"));
    for (const QByteArray& w : read_all(path).split('\n'))
        if (!w.isEmpty()) words.insert(QString::fromLatin1(w));
    return words;
}

}  // namespace

class TestDefaultModel : public QObject {
    Q_OBJECT

    std::shared_ptr<const Model> model_;
    std::unique_ptr<CpuBackend> backend_;
    std::unique_ptr<Transformer> transformer_;
    std::vector<Passage> passages_;

private slots:
    void initTestCase() {
        model_ = load_model((kResources + "/models/kjv-llama.gguf").toStdString());
        backend_ = std::make_unique<CpuBackend>(2);
        transformer_ = std::make_unique<Transformer>(model_, *backend_, 2);
        passages_ = read_passages();
        QVERIFY2(passages_.size() >= 3, "resources/text should hold at least 3 passages");
    }

    void tokenizes_passages_like_sentencepiece() {
        for (const Passage& p : passages_) {
            const QByteArray text = read_all(kResources + "/text/" + p.file);
            const std::vector<int32_t> ours =
                model_->tokenizer.encode(std::string_view(text.constData(), size_t(text.size())),
                                         false);
            QVERIFY2(p.ids.size() > 300, qPrintable(p.file + " is too short to say much"));
            QVERIFY2(ours == p.ids, qPrintable(p.file + ": the ids differ from sentencepiece's"));
        }
    }

    // Greedy continuations of a few prompts must be made of words the corpus has: a model that
    // had not learnt English would join pieces into words no verse contains.
    void greedy_generation_writes_corpus_words() {
        const QSet<QString> corpus = read_corpus_words();
        QVERIFY(corpus.size() > 10000);
        const QRegularExpression word("[A-Za-z]+");
        for (const char* prompt :
             {"And God said", "In the beginning", "The LORD is my shepherd", "Blessed are the",
              "And it came to pass"}) {
            Generator gen(*transformer_, SamplingParams{});
            gen.prefill(model_->tokenizer.encode(prompt, true));
            for (int i = 0; i < 40; ++i) gen.decode_next();
            const std::vector<int32_t>& all = gen.tokens();
            const QString text = QString::fromStdString(model_->tokenizer.decode(
                std::span<const int32_t>(all).subspan(1)));  // after BOS
            qInfo().noquote() << "greedy:" << text;

            QStringList words;
            for (auto it = word.globalMatch(text); it.hasNext();) words << it.next().captured();
            words.removeLast();  // generation may stop inside a word
            QVERIFY2(words.size() >= 20, qPrintable("too few words: " + text));
            for (const QString& w : words)
                QVERIFY2(corpus.contains(w), qPrintable("\"" + w + "\" is not a word of the "
                                                        "corpus, in: " + text));
        }
    }

    // The attention sink (StreamingLLM): a trained model parks attention on the first row.
    // Over a causal pass of n items, row j can be attended by the n - j queries i >= j; if each
    // query spread its attention uniformly over its i + 1 rows, row j would receive
    // heads * sum_{i>=j} 1/(i+1). The ratio of the engine's mass to that uniform share must be
    // larger for row 0 (BOS) than for the average row, in every layer after the first.
    void bos_is_an_attention_sink() {
        const int n = 128;
        const Passage& p = passages_.front();
        QVERIFY(int(p.ids.size()) >= n - 1);
        std::vector<Item> items{Item::of_token(model_->tokenizer.bos_id())};
        for (int i = 0; i < n - 1; ++i) items.push_back(Item::of_token(p.ids[size_t(i)]));
        std::vector<int32_t> positions(n);
        for (int i = 0; i < n; ++i) positions[size_t(i)] = i;
        const std::vector<LayerContext> empty(size_t(model_->config.n_layers));
        ForwardOptions options;
        options.logits = false;
        options.attention_mass = true;
        const ForwardOutput out = transformer_->forward(items, positions, empty, options);

        std::vector<double> uniform(n);
        double tail = 0.0;
        for (int j = n - 1; j >= 0; --j) {
            tail += 1.0 / double(j + 1);
            uniform[size_t(j)] = model_->config.n_heads * tail;
        }
        for (int l = 0; l < model_->config.n_layers; ++l) {
            const std::vector<float>& mass = out.attention_mass[size_t(l)];
            QCOMPARE(int(mass.size()), n);
            double others = 0.0;
            for (int j = 1; j < n; ++j) others += mass[size_t(j)] / uniform[size_t(j)];
            others /= double(n - 1);
            const double bos = mass[0] / uniform[0];
            qInfo("layer %d: BOS gets %.2fx its uniform share, the average other row %.2fx", l,
                  bos, others);
            if (l >= 1)
                QVERIFY2(bos > others, qPrintable(QString("layer %1 has no sink on BOS").arg(l)));
        }
    }
};

QTEST_GUILESS_MAIN(TestDefaultModel)
#include "test_default_model.moc"
