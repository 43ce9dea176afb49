// The Edit menu's history (ARCHITECTURE §15) on synthetic:tiny: Undo then Redo through the menu
// actions give the state hashes the session had at those points (recorded from its Frames as it
// went), each says so in the log and the status bar (and only so: the repeated commands do not
// log again), neither can be used while a Run goes, and a
// fork opens a second window, wholly on the screen, whose session has the original's hash at the
// fork's tick (Edit ▸ Fork at tick offers the tick the session is at).
#include <QAction>
#include <QInputDialog>
#include <QPlainTextEdit>
#include <QScreen>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "app/gui/view_docks.h"
#include "frame_builder.h"
#include "widgets/timeline_view.h"
#include "window_test_support.h"

using namespace kvw;

namespace {

// The ticks the window's timeline holds, in order.
std::vector<int64_t> timeline_ticks(const MainWindow& w) {
    std::vector<int64_t> ticks;
    const auto* view = qobject_cast<const TimelineView*>(w.docks().view("timeline"));
    for (const TimelinePoint& p : view->history().points()) ticks.push_back(p.tick);
    return ticks;
}

std::vector<int64_t> ticks_up_to(int64_t last) {
    std::vector<int64_t> ticks;
    for (int64_t t = 0; t <= last; ++t) ticks.push_back(t);
    return ticks;
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
        test::wait_idle(c);
        hashes.push_back(c.lastFrame()->state_hash);
        for (int i = 0; i < 3; ++i) {
            c.step(1);
            test::wait_idle(c);
            hashes.push_back(c.lastFrame()->state_hash);
        }
        c.postCommand(command::ApplyNow{{Action{DeleteAction{2}, {}}}});
        test::wait_idle(c);
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
        QAction* undo = test::named_action(w, "undo");
        QAction* redo = test::named_action(w, "redo");
        QCOMPARE(undo->shortcut(), QKeySequence(QKeySequence::Undo));
        QCOMPARE(redo->shortcut(), QKeySequence("Ctrl+Shift+Z"));
        QVERIFY(undo->isEnabled());
        QVERIFY(!redo->isEnabled());

        undo->trigger();  // the delete
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->state_hash, hashes[3]);
        undo->trigger();  // the third step
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->state_hash, hashes[2]);
        QCOMPARE(c.lastFrame()->tick, int64_t(2));
        // The ticks that remain keep their points (undo used to leave the last one alone).
        QTRY_VERIFY(timeline_ticks(w) == ticks_up_to(2));
        QTRY_VERIFY(test::status_message(w).contains("undo 1: tick 2"));
        QTRY_VERIFY(test::log_text(w).contains("undo 1: tick 2, state hash"));
        // Going back repeats the commands quietly: their lines were written when they ran.
        QCOMPARE(test::log_text(w).count("prompt: "), 1);
        QVERIFY(redo->isEnabled());

        redo->trigger();
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->state_hash, hashes[3]);
        redo->trigger();
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->state_hash, hashes[4]);
        QTRY_VERIFY(test::log_text(w).contains("redo 1: tick 3"));
        QVERIFY(!redo->isEnabled());

        // A new command after an undo drops what was undone.
        undo->trigger();
        QVERIFY(test::wait_idle(c));
        QVERIFY(redo->isEnabled());
        c.step(1);
        QVERIFY(test::wait_idle(c));
        QVERIFY(!redo->isEnabled());
    }

    void no_undo_while_a_run_goes() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        record(c, w);
        QAction* undo = test::named_action(w, "undo");
        QAction* run = test::named_action(w, "run");
        w.findChild<QSpinBox*>("runTicks")->setValue(5000);
        run->trigger();
        QVERIFY(!undo->isEnabled());
        QTRY_VERIFY(c.lastFrame()->tick >= 5);  // Frames arrive: still disabled
        QVERIFY(!undo->isEnabled());
        run->trigger();  // Pause
        QVERIFY(test::wait_idle(c));
        QVERIFY(undo->isEnabled());
    }

    void fork_opens_a_window_at_the_tick() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        const std::vector<uint64_t> hashes = record(c, w);
        w.forkAt(2);
        QVERIFY(test::wait_idle(c));
        QVERIFY(w.forkWindow());
        SessionController* f = w.forkController();
        QTRY_VERIFY(f->lastFrame() != nullptr);
        QVERIFY(test::wait_idle(*f));
        QCOMPARE(f->lastFrame()->tick, int64_t(2));
        QCOMPARE(f->lastFrame()->state_hash, hashes[2]);
        // The fork's run up to its tick is the original's: its timeline starts with it.
        QTRY_VERIFY(timeline_ticks(*w.forkWindow()) == ticks_up_to(2));
        // The fork goes its own way; the original stays where it was.
        f->step(2);
        QVERIFY(test::wait_idle(*f));
        QCOMPARE(f->lastFrame()->tick, int64_t(4));
        QTRY_VERIFY(timeline_ticks(*w.forkWindow()) == ticks_up_to(4));
        QCOMPARE(timeline_ticks(w), ticks_up_to(3));
        QCOMPARE(c.lastFrame()->state_hash, hashes[4]);
        QVERIFY(w.forkWindow()->windowTitle().startsWith("KV Workbench fork"));
    }

    // A window as a person opens it (its size, not a script's fixed one), filling its screen
    // or in its bottom-right corner: Edit ▸ Fork at tick offers the tick the session is at (no
    // later one), and the fork's window opens wholly on the screen, a step away from the first
    // so that both title bars show.
    void fork_window_opens_on_the_screen_at_the_current_tick() {
        QTemporaryDir settings_dir;  // no geometry saved by the user's own runs
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings_dir.path());
        for (const bool fills_the_screen : {true, false}) {
            SessionController c;
            MainWindow w(c, {false, QSize(1600, 1000)});
            const QRect screen = w.screen()->availableGeometry();
            w.show();
            if (fills_the_screen) {
                w.setGeometry(screen);
            } else {
                w.resize(screen.size() * 3 / 4);
                QTest::qWait(10);  // the size its layout allows
                const QSize size = w.frameGeometry().size();
                w.move(screen.bottomRight() - QPoint(size.width(), size.height()) + QPoint(1, 1));
            }
            record(c, w);
            QCOMPARE(c.lastFrame()->tick, int64_t(3));

            int offered = -1;
            int latest = -1;
            test::ModalAnswers answers({[&](QWidget* dialog) {
                auto* input = qobject_cast<QInputDialog*>(dialog);
                QVERIFY(input);
                offered = input->intValue();
                latest = input->intMaximum();
                input->accept();
            }});
            test::action_titled(w, "Fork at tick…")->trigger();
            QCOMPARE(answers.opened(), 1);
            QCOMPARE(offered, 3);
            QCOMPARE(latest, 3);
            QVERIFY(test::wait_idle(c));
            MainWindow* fork = w.forkWindow();
            QVERIFY(fork);
            QTRY_VERIFY(w.forkController()->lastFrame() != nullptr);
            QCOMPARE(w.forkController()->lastFrame()->tick, int64_t(3));
            const QRect first = w.frameGeometry();
            const QRect placed = fork->frameGeometry();
            const QString where = QString("first %1,%2 %3x%4, fork %5,%6 %7x%8 on %9x%10")
                                      .arg(first.x())
                                      .arg(first.y())
                                      .arg(first.width())
                                      .arg(first.height())
                                      .arg(placed.x())
                                      .arg(placed.y())
                                      .arg(placed.width())
                                      .arg(placed.height())
                                      .arg(screen.width())
                                      .arg(screen.height());
            QVERIFY2(screen.contains(placed), qPrintable(where));
            QVERIFY2(placed.top() != first.top() && placed.left() != first.left(),
                     qPrintable(where));
        }
    }
};

QTEST_MAIN(TestHistoryMenu)
#include "test_history_menu.moc"
