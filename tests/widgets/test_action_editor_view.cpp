// Action editor: a JSON list that does not parse shows the parser's message and sends nothing;
// one that parses is sent as parsed, queued or applied now; the form builds the action its
// fields describe (or the text request), refuses bad fields inline; the queued list and the
// session's last error come from the frame.
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QtTest>

#include "core/model/model_loader.h"
#include "core/model/tokenizer.h"
#include "core/state/action_json.h"
#include "frame_builder.h"
#include "widgets/action_editor_view.h"
#include "widgets/action_list_table.h"

using namespace kvw;
using test::make_frame;

class TestActionEditorView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::use_workbench_look();
        qRegisterMetaType<kvw::ActionList>();
    }

    void bad_json_shows_the_error_and_sends_nothing() {
        ActionEditorView view;
        QSignalSpy actions(&view, &FrameView::actionsRequested);
        view.setCurrentTab(ActionEditorView::JsonTab);
        const QString bad =
            "[{\"action\":\"delete\",\"pos\":12},\n {\"action\":\"add\",\"token_id\":\"x\"}]";
        view.setJsonText(bad);
        QVERIFY(!view.submit(false));
        QCOMPARE(actions.count(), 0);
        // The message is the parser's own, with the place it names.
        QString expected;
        try {
            parse_action_list(bad.toStdString());
        } catch (const ActionParseError& e) {
            expected = QString::fromStdString(e.what());
        }
        QVERIFY(!expected.isEmpty());
        QCOMPARE(view.errorText(), expected);
        QVERIFY(view.errorText().contains("token_id"));
        // A syntax error too.
        view.setJsonText("[{\"action\":\"delete\",");
        QVERIFY(!view.submit(true));
        QCOMPARE(actions.count(), 0);
        QVERIFY(!view.errorText().isEmpty());
        // Nothing to send is not sent either.
        view.setJsonText("  \n");
        QVERIFY(!view.submit(true));
        QCOMPARE(actions.count(), 0);
    }

    void valid_json_is_sent_as_parsed() {
        ActionEditorView view;
        QSignalSpy actions(&view, &FrameView::actionsRequested);
        view.setCurrentTab(ActionEditorView::JsonTab);
        view.setJsonText(
            "[{\"action\":\"delete\",\"pos\":12},\n"
            " {\"action\":\"replace_pair\",\"original_pos1\":3,\"original_pos2\":4,\"new_token_"
            "ids\":[7,8],\"layers\":[1]},\n"
            " {\"action\":\"add\",\"token_id\":42}]");
        QVERIFY(view.submit(true));
        QCOMPARE(actions.count(), 1);
        const ActionList expected = {Action{DeleteAction{12}, {}},
                                     Action{ReplacePairAction{3, 4, {7, 8}}, {1}},
                                     Action{AddAction{42}, {}}};
        QCOMPARE(actions.at(0).at(0).value<ActionList>(), expected);
        QCOMPARE(actions.at(0).at(1).toBool(), true);
        QVERIFY(view.errorText().isEmpty());
        // The buttons say which: queue.
        view.findChild<QPushButton*>("queue")->click();
        QCOMPARE(actions.count(), 2);
        QCOMPARE(actions.at(1).at(1).toBool(), false);
    }

    void the_form_builds_one_action() {
        ActionEditorView view;
        QSignalSpy actions(&view, &FrameView::actionsRequested);
        view.setCurrentTab(ActionEditorView::FormTab);
        view.setSelection(0, 9);  // a row selected elsewhere starts the positions
        view.findChild<QLineEdit*>("layers")->setText("0, 2");
        QVERIFY(view.submit(false));
        QCOMPARE(actions.at(0).at(0).value<ActionList>(),
                 (ActionList{Action{DeleteAction{9}, {0, 2}}}));

        view.findChild<QComboBox*>("kind")->setCurrentIndex(1);  // replace_pair
        view.findChild<QLineEdit*>("tokenIds")->setText("5 6");
        view.findChild<QLineEdit*>("layers")->clear();
        QVERIFY(view.submit(false));
        QCOMPARE(actions.at(1).at(0).value<ActionList>(),
                 (ActionList{Action{ReplacePairAction{9, 10, {5, 6}}, {}}}));

        view.findChild<QComboBox*>("kind")->setCurrentIndex(3);  // add
        view.findChild<QSpinBox*>("tokenId")->setValue(77);
        QVERIFY(view.submit(true));
        QCOMPARE(actions.at(2).at(0).value<ActionList>(), (ActionList{Action{AddAction{77}, {}}}));

        // The wLOD actions (ARCHITECTURE §14): collapse with its level, expand at pos.
        view.findChild<QComboBox*>("kind")->setCurrentText("collapse");
        QVERIFY(view.findChild<QSpinBox*>("level")->isVisibleTo(&view));
        view.findChild<QSpinBox*>("level")->setValue(2);
        view.findChild<QLineEdit*>("layers")->setText("1");
        QVERIFY(view.submit(true));
        QCOMPARE(actions.at(3).at(0).value<ActionList>(),
                 (ActionList{Action{CollapseAction{9, 2}, {1}}}));
        view.findChild<QComboBox*>("kind")->setCurrentText("expand");
        QVERIFY(!view.findChild<QSpinBox*>("level")->isVisibleTo(&view));
        view.findChild<QLineEdit*>("layers")->clear();
        QVERIFY(view.submit(false));
        QCOMPARE(actions.at(4).at(0).value<ActionList>(),
                 (ActionList{Action{ExpandAction{9}, {}}}));
    }

    void bad_form_fields_send_nothing() {
        ActionEditorView view;
        QSignalSpy actions(&view, &FrameView::actionsRequested);
        view.findChild<QLineEdit*>("layers")->setText("0, x");
        QVERIFY(!view.submit(false));
        QVERIFY2(view.errorText().contains("layers") && view.errorText().contains("'x'"),
                 qPrintable(view.errorText()));
        view.findChild<QLineEdit*>("layers")->clear();
        view.findChild<QComboBox*>("kind")->setCurrentIndex(1);
        view.findChild<QLineEdit*>("tokenIds")->setText("5, -1");
        QVERIFY(!view.submit(false));
        QVERIFY(view.errorText().contains("token ids"));
        QCOMPARE(actions.count(), 0);
    }

    void text_goes_to_the_controller() {
        ActionEditorView view;
        QSignalSpy text(&view, &FrameView::textActionRequested);
        QSignalSpy actions(&view, &FrameView::actionsRequested);
        view.setSelection(3, 14);
        view.findChild<QComboBox*>("kind")->setCurrentIndex(2);  // insert
        view.findChild<QRadioButton*>("useText")->setChecked(true);
        view.findChild<QLineEdit*>("text")->setText(" hello");
        QVERIFY(view.submit(true));
        QCOMPARE(actions.count(), 0);
        QCOMPARE(text.count(), 1);
        const QList<QVariant> args = text.at(0);
        QCOMPARE(args.at(0).value<TextActionKind>(), TextActionKind::Insert);
        QCOMPARE(args.at(1).toInt(), 3);
        QCOMPARE(args.at(2).toInt(), 14);
        QCOMPARE(args.at(4).toString(), QString(" hello"));
        QCOMPARE(args.at(5).toBool(), true);
    }

    // The new tokens of a replace or insert show as they are typed, as the pieces the session
    // will put into the cache (not ids), before anything is sent: a leading space that becomes a
    // token of its own is seen as "[·]". The queue lists its new tokens as pieces too. (The ids
    // are builtin:default's: `kvw tokenize " And God" --no-bos` gives 4034 ' ', 300 ' And',
    // 393 ' God'.)
    void the_form_shows_the_tokens_a_text_becomes() {
        ActionEditorView view;
        view.findChild<QComboBox*>("kind")->setCurrentText("insert");
        view.findChild<QRadioButton*>("useText")->setChecked(true);
        auto* text = view.findChild<QLineEdit*>("text");
        auto* preview = view.findChild<QLabel*>("tokenPreview");
        QVERIFY(preview);
        QVERIFY(preview->isVisibleTo(&view));
        text->setText(" And God");
        QCOMPARE(preview->text(), QString("shown once a model is loaded"));

        const std::shared_ptr<const Model> model = load_model("builtin:default");
        auto frame = make_frame(4, 40);
        frame->tokenizer = std::shared_ptr<const Tokenizer>(model, &model->tokenizer);
        frame->injected = {Action{ReplacePairAction{3, 4, {4034, 300, 393}}, {}},
                           Action{AddAction{393}, {}}};
        view.setFrame(frame);
        QCOMPARE(preview->text(), QString("3 tokens: [·] [·And] [·God]"));
        text->setText("And God");  // live, as typed
        QCOMPARE(preview->text(), QString("2 tokens: [·And] [·God]"));
        view.findChild<QComboBox*>("kind")->setCurrentText("replace_pair");
        QVERIFY(preview->isVisibleTo(&view));
        QCOMPARE(preview->text(), QString("2 tokens: [·And] [·God]"));
        // Ids typed by hand show as their pieces too.
        view.findChild<QRadioButton*>("useIds")->setChecked(true);
        view.findChild<QLineEdit*>("tokenIds")->setText("4034, 393");
        QCOMPARE(preview->text(), QString("2 tokens: [·] [·God]"));
        view.findChild<QComboBox*>("kind")->setCurrentText("delete");
        QVERIFY(!preview->isVisibleTo(&view));

        auto* queued = view.findChild<ActionListTable*>("queued");
        QCOMPARE(queued->text(0, ActionListTable::Summary),
                 QString("replace_pair → [·] [·And] [·God]"));
        QCOMPARE(queued->text(1, ActionListTable::Summary), QString("add [·God]"));
    }

    // A vocabulary of Qwen 2.5's size (152,064 pieces): ids past 2^16 and 2^17 typed in the
    // form show as their pieces, the add form takes the last id, and the queue lists such ids
    // as pieces, as for a small vocabulary.
    void ids_of_a_150k_vocabulary_show_as_their_pieces() {
        Vocabulary v;
        v.pieces = {"<unk>", "<s>", "</s>"};
        for (int i = 3; i < 152064; ++i) v.pieces.push_back("\u2581w" + std::to_string(i));
        v.scores.assign(v.pieces.size(), 0.0f);
        v.types.assign(v.pieces.size(), TokenType::Normal);
        v.types[0] = TokenType::Unknown;
        v.types[1] = v.types[2] = TokenType::Control;
        auto frame = make_frame(4, 40);
        frame->tokenizer = std::make_shared<const Tokenizer>(std::move(v));
        frame->injected = {Action{AddAction{152063}, {}}};
        ActionEditorView view;
        QSignalSpy actions(&view, &FrameView::actionsRequested);
        view.setFrame(frame);
        view.setCurrentTab(ActionEditorView::FormTab);
        view.findChild<QComboBox*>("kind")->setCurrentText("insert");
        view.findChild<QRadioButton*>("useIds")->setChecked(true);
        view.findChild<QLineEdit*>("tokenIds")->setText("70000, 151999");
        QCOMPARE(view.findChild<QLabel*>("tokenPreview")->text(),
                 QString("2 tokens: [·w70000] [·w151999]"));
        QCOMPARE(view.findChild<ActionListTable*>("queued")->text(0, ActionListTable::Summary),
                 QString("add [·w152063]"));
        view.findChild<QComboBox*>("kind")->setCurrentText("add");
        view.findChild<QSpinBox*>("tokenId")->setValue(152063);
        QVERIFY(view.submit(false));
        QCOMPARE(actions.at(0).at(0).value<ActionList>(),
                 (ActionList{Action{AddAction{152063}, {}}}));
    }

    void form_actions_append_to_the_json_list() {
        ActionEditorView view;
        view.setJsonText("[{\"action\":\"add\",\"token_id\":1}]");
        view.setSelection(0, 4);
        view.setCurrentTab(ActionEditorView::FormTab);
        for (QPushButton* b : view.findChildren<QPushButton*>())
            if (b->text() == "Append to JSON list") b->click();
        const QString json = view.findChild<QPlainTextEdit*>("json")->toPlainText();
        QCOMPARE(parse_action_list(json.toStdString()),
                 (ActionList{Action{AddAction{1}, {}}, Action{DeleteAction{4}, {}}}));
    }

    void shows_the_queue_and_the_session_error() {
        ActionEditorView view;
        auto frame = make_frame(4, 40);
        frame->injected = {Action{DeleteAction{20}, {1}}, Action{AddAction{42}, {}}};
        frame->last_error = "rejected: [pos 90 is outside layer 0's 40 rows]";
        view.setFrame(frame);
        auto* queued = view.findChild<ActionListTable*>("queued");
        QCOMPARE(queued->rowCount(), 2);
        QCOMPARE(queued->text(0, 1), QString("delete"));
        QCOMPARE(queued->text(0, 2), QString("20"));
        QCOMPARE(queued->text(0, 3), QString("1"));
        QCOMPARE(queued->text(1, 1), QString("add 42"));
        auto* error = view.findChild<QLabel*>("sessionError");
        QVERIFY(!error->isHidden());
        QVERIFY(error->text().contains("pos 90 is outside"));
        frame = make_frame(4, 40);
        view.setFrame(frame);
        QVERIFY(error->isHidden());
        QCOMPARE(queued->rowCount(), 0);
    }
};

QTEST_MAIN(TestActionEditorView)
#include "test_action_editor_view.moc"
