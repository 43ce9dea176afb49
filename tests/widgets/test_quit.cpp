// Quitting the window (File ▸ Quit, closing the first window) on synthetic:tiny with a fork window
// open: one question names every session whose trace changed since it was last saved (the first
// window's and the fork's) — Save, Discard or Cancel — and then every window closes; Save writes
// each trace to the file picked for it; nothing unsaved, or a script's window, closes without a
// question. The traces written are read back with Trace::read and their ticks counted.
#include <QAbstractButton>
#include <QLabel>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "frame_builder.h"
#include "window_test_support.h"

using namespace kvw;

namespace {

constexpr const char* kPrompt = "The cache remembers what the model was told";

// An answer to the question about unsaved sessions: checks that it names `sessions` and
// clicks `button`.
test::ModalAnswers::Answer answer_question(QStringList sessions,
                                           QMessageBox::StandardButton button) {
    return [sessions, button](QWidget* dialog) {
        auto* box = qobject_cast<QMessageBox*>(dialog);
        QVERIFY2(box, dialog->metaObject()->className());
        for (const QString& s : sessions)
            QVERIFY2(box->text().contains(s), qPrintable(box->text()));
        box->button(button)->click();
    };
}

}  // namespace

class TestQuit : public QObject {
    Q_OBJECT

    test::ScratchSettings settings_;

    // A window as a person has it (no script), synthetic:tiny started and two ticks run, then
    // forked at tick 1 and the fork stepped once: two sessions not saved.
    void twoUnsavedSessions(SessionController& c, MainWindow& w) {
        w.setBackend("cpu");
        w.setPrompt(kPrompt);
        w.show();
        w.openModel("synthetic:tiny");
        QVERIFY(test::wait_idle(c));
        c.step(2);
        QVERIFY(test::wait_idle(c));
        w.forkAt(1);
        QVERIFY(test::wait_idle(c));
        QVERIFY(w.forkWindow());
        SessionController* f = w.forkController();
        QTRY_VERIFY(f->lastFrame() != nullptr);
        QVERIFY(test::wait_idle(*f));
        f->step(1);
        QVERIFY(test::wait_idle(*f));
        QCOMPARE(f->lastFrame()->tick, int64_t(2));
    }

private slots:
    void initTestCase() { test::use_workbench_look(); }

    // Cancel keeps both windows and both sessions; Discard then closes both: the fork window
    // does not outlive the first (it kept the program running).
    void quit_asks_once_and_closes_every_window() {
        SessionController c;
        MainWindow w(c, {false, QSize(1024, 700)});
        twoUnsavedSessions(c, w);
        const QPointer<MainWindow> fork = w.forkWindow();
        {
            test::ModalAnswers answers({answer_question(
                {"the session (synthetic:tiny, tick 2)", "the fork (synthetic:tiny, tick 2)"},
                QMessageBox::Cancel)});
            test::action_titled(w, "Quit")->trigger();
            QCOMPARE(answers.opened(), 1);
        }
        QVERIFY(w.isVisible());
        QVERIFY(fork && fork->isVisible());
        {
            test::ModalAnswers answers(
                {answer_question({"the session", "the fork"}, QMessageBox::Discard)});
            QVERIFY(w.close());
            QCOMPARE(answers.opened(), 1);  // one question for both
        }
        QVERIFY(!w.isVisible());
        QTRY_VERIFY(fork.isNull());
    }

    // Save asks where each trace goes and writes it; then every window closes.
    void save_writes_every_trace_then_quits() {
        QTemporaryDir out;
        SessionController c;
        MainWindow w(c, {false, QSize(1024, 700)});
        twoUnsavedSessions(c, w);
        const QPointer<MainWindow> fork = w.forkWindow();
        const QString mine = out.filePath("mine.ndjson");
        const QString forked = out.filePath("forked.ndjson");
        test::ModalAnswers answers({answer_question({"the session", "the fork"}, QMessageBox::Save),
                                    test::pick_file(mine), test::pick_file(forked)});
        // From the fork window's menu: Quit there quits too.
        test::action_titled(*fork, "Quit")->trigger();
        QCOMPARE(answers.opened(), 3);
        QCOMPARE(answers.unanswered(), 0);
        QVERIFY(!w.isVisible());
        QTRY_VERIFY(fork.isNull());
        QCOMPARE(test::ticks_in_trace(mine), 2);    // the prompt, then ticks 1 and 2
        QCOMPARE(test::ticks_in_trace(forked), 2);  // tick 1 from the first session, then its own
    }

    // A session saved since its last change closes without a question; so does a script's
    // window, unsaved or not (nobody is there to answer).
    void saved_and_scripted_sessions_close_without_asking() {
        QTemporaryDir out;
        {
            SessionController c;
            MainWindow w(c, {false, QSize(1024, 700)});
            twoUnsavedSessions(c, w);
            c.saveTrace(out.filePath("mine.ndjson"));
            w.forkController()->saveTrace(out.filePath("forked.ndjson"));
            QVERIFY(test::wait_idle(c));
            QVERIFY(test::wait_idle(*w.forkController()));
            test::ModalAnswers answers({});
            QVERIFY(w.close());
            QCOMPARE(answers.opened(), 0);
        }
        SessionController c;
        MainWindow w(c, {true, QSize(1024, 700)});
        twoUnsavedSessions(c, w);
        test::ModalAnswers answers({});
        QVERIFY(w.close());
        QCOMPARE(answers.opened(), 0);
    }
};

QTEST_MAIN(TestQuit)
#include "test_quit.moc"
