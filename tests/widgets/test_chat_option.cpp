// The window's "as a chat turn" option (the toolbar's Chat action): disabled, with the reason
// as its tooltip, for a model without a chat template or with one this build cannot render;
// when checked, Start sends the prompt as a chat turn. The SessionController then prefills the
// ids `tokenizers` gives jinja2's rendering of the turn (tests/data/make_chat_templates.py),
// and a model without a template is an error that leaves the session as it was.
#include <QAction>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QtTest>

#include <fstream>
#include <iterator>

#include "app/gui/main_toolbar.h"
#include "app/gui/session_controller.h"
#include "core/model/model_loader.h"
#include "tests/testdata.h"
#include "tests/widgets/frame_builder.h"
#include "tests/widgets/window_test_support.h"

using namespace kvw;

namespace {

QJsonObject expected_model() {
    std::ifstream in(test::testdata_path("chat_templates/model/expected.json"));
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    return QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
}

// A frame whose model's vocabulary carries `chat_template`.
FramePtr frame_with_template(std::optional<std::string> chat_template) {
    static const auto tiny = load_model("synthetic:tiny");
    Vocabulary vocab = tiny->tokenizer.vocabulary();
    vocab.chat_template = std::move(chat_template);
    auto frame = test::make_frame(2, 8);
    frame->tokenizer = std::make_shared<const Tokenizer>(std::move(vocab));
    return frame;
}

// The token ids of the frame's sequence, in ledger order.
std::vector<int32_t> sequence_ids(const Frame& f) {
    std::vector<int32_t> ids;
    for (size_t i = 0; i < f.ledger.size(); ++i) ids.push_back(f.ledger[i].token_id);
    return ids;
}

}  // namespace

class TestChatOption : public QObject {
    Q_OBJECT

private slots:
    void the_option_follows_the_models_template() {
        MainToolBar toolbar;
        auto* chat = toolbar.findChild<QAction*>("chat");
        auto* start = toolbar.findChild<QAction*>("start");
        QVERIFY(chat && start);
        QVERIFY(!chat->isEnabled());  // no model yet

        toolbar.setFrame(frame_with_template(std::nullopt));
        QVERIFY(!chat->isEnabled());
        QVERIFY2(chat->toolTip().contains("no chat template"), qPrintable(chat->toolTip()));

        toolbar.setFrame(frame_with_template("{% macro m() %}{% endmacro %}"));
        QVERIFY(!chat->isEnabled());
        QVERIFY2(chat->toolTip().contains("tag 'macro'"), qPrintable(chat->toolTip()));

        toolbar.setFrame(frame_with_template("{{ messages[0].content }}"));
        QVERIFY(chat->isEnabled());
        QSignalSpy plain(&toolbar, &MainToolBar::promptSubmitted);
        QSignalSpy as_chat(&toolbar, &MainToolBar::chatPromptSubmitted);
        toolbar.setPrompt("hello");
        start->trigger();
        QCOMPARE(plain.count(), 1);
        chat->setChecked(true);
        start->trigger();
        QCOMPARE(as_chat.count(), 1);
        QCOMPARE(as_chat.last().at(0).toString(), QString("hello"));

        // A model without one unchecks and disables it again.
        toolbar.setFrame(frame_with_template(std::nullopt));
        QVERIFY(!chat->isEnabled());
        QVERIFY(!chat->isChecked());
        start->trigger();
        QCOMPARE(plain.count(), 2);
        QCOMPARE(as_chat.count(), 1);
    }

    void a_chat_turn_prefills_the_rendered_ids() {
        const QJsonObject want = expected_model();
        SessionController c;
        c.loadModel(QString::fromStdString(test::testdata_path("chat_templates/model/hf")), "cpu");
        c.startChatPrompt(want["prompt"].toString());
        QVERIFY(test::wait_idle(c));
        std::vector<int32_t> ids;
        for (const QJsonValue& v : want["user_only_ids"].toArray()) ids.push_back(v.toInt());
        QCOMPARE(sequence_ids(*c.lastFrame()), ids);
        QCOMPARE(QString::fromStdString(c.lastFrame()->prompt), want["user_only_text"].toString());
    }

    void a_model_without_a_template_keeps_the_session() {
        SessionController c;
        c.loadModel("synthetic:tiny", "cpu");
        c.startPrompt("The cache");
        QVERIFY(test::wait_idle(c));
        const FramePtr before = c.lastFrame();
        QSignalSpy errors(&c, &SessionController::errorOccurred);
        c.startChatPrompt("hello");
        QVERIFY(test::wait_idle(c));
        QCOMPARE(errors.count(), 1);
        QVERIFY2(errors.last().at(0).toString().contains("no chat template"),
                 qPrintable(errors.last().at(0).toString()));
        QCOMPARE(c.lastFrame()->state_hash, before->state_hash);
        QCOMPARE(c.lastFrame()->prompt, before->prompt);
    }
};

QTEST_MAIN(TestChatOption)
#include "test_chat_option.moc"
