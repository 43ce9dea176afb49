// One log per window (issue 25 item 3; ARCHITECTURE §10): the A/B run's hidden sessions write
// nothing into the window's log (their starts read like the user's session restarting), and a
// fork window's log holds the fork's lines, not the main window's, and the other way round.
#include <QtTest>

#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "core/eval/ab_compare.h"
#include "frame_builder.h"
#include "window_test_support.h"

using namespace kvw;

namespace {

const char* const kPrompt = "The cache remembers what the model was told";

void start(SessionController& c, MainWindow& w) {
    w.setBackend("cpu");
    w.setPrompt(kPrompt);
    w.openModel("synthetic:tiny");
    QVERIFY(test::wait_idle(c));
}

}  // namespace

class TestWindowLogs : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    // A/B made again after a policy change starts two hidden sessions from the prompt: the
    // log still says once that a session started on the model and took the prompt.
    void ab_sides_stay_out_of_the_log() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        start(c, w);
        c.postCommand(command::SetProposer{"streaming-llm"});
        PolicyOptions b;
        b.budget = {1, 3, 2};
        c.startAb("h2o", b);
        c.step(2);
        c.postCommand(
            command::SetProposer{"h2o"});  // A is the session's policy: the run is made again
        c.step(1);
        QVERIFY(test::wait_idle(c));
        QVERIFY(c.lastFrame()->ab);
        QCOMPARE(c.lastFrame()->ab->nll_a.scored, int64_t(3));
        const QString log = test::log_text(w);
        QVERIFY2(log.contains("A/B on"), qPrintable(log));
        QCOMPARE(log.count("session: synthetic:tiny"), 1);
        QCOMPARE(log.count("prompt: "), 1);
    }

    // The fork's window and the main one: each log shows what its own session did.
    void a_fork_window_keeps_its_own_log() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        start(c, w);
        c.step(3);
        QVERIFY(test::wait_idle(c));
        w.forkAt(2);
        QVERIFY(test::wait_idle(c));
        SessionController* f = w.forkController();
        QVERIFY(f && w.forkWindow());
        QTRY_VERIFY(f->lastFrame() != nullptr);
        QVERIFY(test::wait_idle(*f));

        c.postCommand(command::Drift{});     // "drift at tick 3: ..." in the main window only
        f->postCommand(command::Rebuild{});  // "rebuilt the cache from the mirror at tick 2" in the
                                             // fork's only
        QVERIFY(test::wait_idle(c));
        QVERIFY(test::wait_idle(*f));
        const QString main_log = test::log_text(w);
        const QString fork_log = test::log_text(*w.forkWindow());
        QVERIFY2(main_log.contains("drift at tick 3"), qPrintable(main_log));
        QVERIFY2(!main_log.contains("rebuilt the cache"), qPrintable(main_log));
        QVERIFY2(fork_log.contains("rebuilt the cache from the mirror at tick 2"),
                 qPrintable(fork_log));
        QVERIFY2(!fork_log.contains("drift at tick"), qPrintable(fork_log));
        QVERIFY2(!fork_log.contains("session: synthetic:tiny"), qPrintable(fork_log));
    }
};

QTEST_MAIN(TestWindowLogs)
#include "test_window_logs.moc"
