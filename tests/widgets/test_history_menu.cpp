// The Edit menu's history (ARCHITECTURE §15) on synthetic:tiny: Undo then Redo through the menu
// actions give the state hashes the session had at those points (recorded from its Frames as it
// went), each says so in the log and the status bar (and only so: the repeated commands do not
// log again), neither can be used while a Run goes, and a
// fork opens a second window whose session has the original's hash at the fork's tick.
#include <QAction>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QStatusBar>
#include <QtTest>

#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "app/gui/view_docks.h"
#include "frame_builder.h"

using namespace kvw;

namespace {

bool wait_idle(const SessionController& c) {
    QElapsedTimer t;
    t.start();
    while (!c.isIdle() && t.elapsed() < 60000) QTest::qWait(2);
    QTest::qWait(5);  // the last queued Frame and log lines
    return c.isIdle();
}

QString log_text(MainWindow& w) {
    return w.docks().view("log")->findChild<QPlainTextEdit*>("text")->toPlainText();
}

QAction* action(MainWindow& w, const char* name) {
    QAction* a = w.findChild<QAction*>(name);
    if (!a) qFatal("no action %s", name);
    return a;
}

}  // namespace

class TestHistoryMenu : public QObject {
    Q_OBJECT

    // Started on synthetic:tiny, then three single steps and a delete applied now; hashes[i] is
    // the Frame's state hash after the i-th of those four commands (0: after the prompt).
    std::vector<uint64_t> record(SessionController& c, MainWindow& w) {
        std::vector<uint64_t> hashes;
        w.setBackend("cpu");
        w.setPrompt("The cache remembers what the model was told");
        w.openModel("synthetic:tiny");
        wait_idle(c);
        hashes.push_back(c.lastFrame()->state_hash);
        for (int i = 0; i < 3; ++i) {
            c.step(1);
            wait_idle(c);
            hashes.push_back(c.lastFrame()->state_hash);
        }
        c.applyNow({Action{DeleteAction{2}, {}}});
        wait_idle(c);
        hashes.push_back(c.lastFrame()->state_hash);
        return hashes;
    }

private slots:
    void initTestCase() { test::use_workbench_look(); }

    void undo_then_redo_through_the_menu_restores_the_hash() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        const std::vector<uint64_t> hashes = record(c, w);
        QCOMPARE(hashes.size(), size_t(5));
        QAction* undo = action(w, "undo");
        QAction* redo = action(w, "redo");
        QCOMPARE(undo->shortcut(), QKeySequence(QKeySequence::Undo));
        QCOMPARE(redo->shortcut(), QKeySequence("Ctrl+Shift+Z"));
        QVERIFY(undo->isEnabled());
        QVERIFY(!redo->isEnabled());

        undo->trigger();  // the delete
        QVERIFY(wait_idle(c));
        QCOMPARE(c.lastFrame()->state_hash, hashes[3]);
        undo->trigger();  // the third step
        QVERIFY(wait_idle(c));
        QCOMPARE(c.lastFrame()->state_hash, hashes[2]);
        QCOMPARE(c.lastFrame()->tick, int64_t(2));
        QTRY_VERIFY(w.statusBar()->currentMessage().contains("undo 1: tick 2"));
        QTRY_VERIFY(log_text(w).contains("undo 1: tick 2, state hash"));
        // Going back repeats the commands quietly: their lines were written when they ran.
        QCOMPARE(log_text(w).count("prompt: "), 1);
        QVERIFY(redo->isEnabled());

        redo->trigger();
        QVERIFY(wait_idle(c));
        QCOMPARE(c.lastFrame()->state_hash, hashes[3]);
        redo->trigger();
        QVERIFY(wait_idle(c));
        QCOMPARE(c.lastFrame()->state_hash, hashes[4]);
        QTRY_VERIFY(log_text(w).contains("redo 1: tick 3"));
        QVERIFY(!redo->isEnabled());

        // A new command after an undo drops what was undone.
        undo->trigger();
        QVERIFY(wait_idle(c));
        QVERIFY(redo->isEnabled());
        c.step(1);
        QVERIFY(wait_idle(c));
        QVERIFY(!redo->isEnabled());
    }

    void no_undo_while_a_run_goes() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        record(c, w);
        QAction* undo = action(w, "undo");
        QAction* run = action(w, "run");
        w.findChild<QSpinBox*>("runTicks")->setValue(5000);
        run->trigger();
        QVERIFY(!undo->isEnabled());
        QTRY_VERIFY(c.lastFrame()->tick >= 5);  // Frames arrive: still disabled
        QVERIFY(!undo->isEnabled());
        run->trigger();  // Pause
        QVERIFY(wait_idle(c));
        QVERIFY(undo->isEnabled());
    }

    void fork_opens_a_window_at_the_tick() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        const std::vector<uint64_t> hashes = record(c, w);
        w.forkAt(2);
        QVERIFY(wait_idle(c));
        QVERIFY(w.forkWindow());
        SessionController* f = w.forkController();
        QTRY_VERIFY(f->lastFrame() != nullptr);
        QVERIFY(wait_idle(*f));
        QCOMPARE(f->lastFrame()->tick, int64_t(2));
        QCOMPARE(f->lastFrame()->state_hash, hashes[2]);
        // The fork goes its own way; the original stays where it was.
        f->step(2);
        QVERIFY(wait_idle(*f));
        QCOMPARE(f->lastFrame()->tick, int64_t(4));
        QCOMPARE(c.lastFrame()->state_hash, hashes[4]);
        QVERIFY(w.forkWindow()->windowTitle().startsWith("KV Workbench fork"));
    }
};

QTEST_MAIN(TestHistoryMenu)
#include "test_history_menu.moc"
