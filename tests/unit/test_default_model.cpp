// The committed default model (resources/models/kjv-llama.gguf, trained by
// tools/train_default_model.py) against independent references: sentencepiece's ids for the
// held-out passages and the King James Bible's own word list (both from make_default_model.py),
// and, for the attention sink, the other context rows that the same queries could attend.
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

#include "core/backend/cpu/cpu_backend.h"
#include "core/engine/transformer.h"
#include "core/model/model_loader.h"
#include "core/session/generator.h"
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
    const QString path =
        QString::fromStdString(test::testdata_path("default_model/passages.jsonl"));
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
    const QString path =
        QString::fromStdString(test::testdata_path("default_model/corpus_words.txt"));
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
        transformer_ = std::make_unique<Transformer>(model_, *backend_);
        passages_ = read_passages();
        QVERIFY2(passages_.size() >= 3, "resources/text should hold at least 3 passages");
    }

    void tokenizes_passages_like_sentencepiece() {
        for (const Passage& p : passages_) {
            const QByteArray text = read_all(kResources + "/text/" + p.file);
            const std::vector<int32_t> ours = model_->tokenizer.encode(
                std::string_view(text.constData(), size_t(text.size())), false);
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
        for (const char* prompt : {"And God said", "In the beginning", "The LORD is my shepherd",
                                   "Blessed are the", "And it came to pass"}) {
            Generator gen(*transformer_, SamplingParams{});
            gen.prefill(model_->tokenizer.encode(prompt, true));
            for (int i = 0; i < 40; ++i) gen.decode_next();
            const std::vector<int32_t>& all = gen.tokens();
            const QString text = QString::fromStdString(
                model_->tokenizer.decode(std::span<const int32_t>(all).subspan(1)));  // after BOS
            qInfo().noquote() << "greedy:" << text;

            QStringList words;
            for (auto it = word.globalMatch(text); it.hasNext();) words << it.next().captured();
            words.removeLast();  // generation may stop inside a word
            QVERIFY2(words.size() >= 20, qPrintable("too few words: " + text));
            for (const QString& w : words)
                QVERIFY2(corpus.contains(w), qPrintable("\"" + w +
                                                        "\" is not a word of the "
                                                        "corpus, in: " +
                                                        text));
        }
    }

    // The attention sink (StreamingLLM): a trained model parks attention on the first row.
    // For each passage, BOS + its first 127 tokens: the first 96 are run as context, then the
    // last 32 attend to them (and causally to each other). Each of the 32 queries can see every
    // context row, so the rows 0..95 are equally exposed and their masses compare directly:
    // row 0 (BOS) must receive more than the average of rows 1..95, summed over the passages,
    // in every layer after the first.
    void bos_is_an_attention_sink() {
        const int n = 128, context_rows = 96;
        const int layers = model_->config.n_layers;
        std::vector<double> bos(size_t(layers), 0.0), others(size_t(layers), 0.0);
        for (const Passage& p : passages_) {
            std::vector<Item> items{Item::of_token(model_->tokenizer.bos_id())};
            for (int i = 0; i < n - 1; ++i) items.push_back(Item::of_token(p.ids[size_t(i)]));
            std::vector<int32_t> positions(n);
            for (int i = 0; i < n; ++i) positions[size_t(i)] = i;

            const std::span<const Item> all(items);
            const std::span<const int32_t> pos(positions);
            const std::vector<LayerContext> none(static_cast<size_t>(layers));
            ForwardOptions options;
            options.logits = false;
            const ForwardOutput first = transformer_->forward(
                all.first(context_rows), pos.first(context_rows), none, options);
            std::vector<LayerContext> context(static_cast<size_t>(layers));
            for (int l = 0; l < layers; ++l)
                context[size_t(l)] = {context_rows, {first.k.of(l)}, {first.v.of(l)}, nullptr};
            options.attention_mass = true;
            const ForwardOutput late = transformer_->forward(
                all.subspan(context_rows), pos.subspan(context_rows), context, options);

            for (int l = 0; l < layers; ++l) {
                const std::vector<float>& mass = late.attention_mass[size_t(l)];
                QCOMPARE(int(mass.size()), n);
                bos[size_t(l)] += mass[0];
                for (int j = 1; j < context_rows; ++j)
                    others[size_t(l)] += mass[size_t(j)] / double(context_rows - 1);
            }
        }
        QStringList without_sink;
        for (int l = 0; l < layers; ++l) {
            const double ratio = bos[size_t(l)] / others[size_t(l)];
            qInfo("layer %d: BOS receives %.2fx the attention of the average context row", l,
                  ratio);
            if (l >= 1 && !(ratio > 1.0)) without_sink << QString::number(l);
        }
        QEXPECT_FAIL("",
                     "kjv-llama shows no attention sink in layers 2 and 3 "
                     "(resources/models/README.md); an XPASS means a retrained model has one",
                     Abort);
        QVERIFY2(without_sink.isEmpty(),
                 qPrintable("no sink on BOS in layer(s) " + without_sink.join(", ")));
    }
};

QTEST_GUILESS_MAIN(TestDefaultModel)
#include "test_default_model.moc"
