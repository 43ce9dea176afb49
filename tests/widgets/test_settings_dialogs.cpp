// The Session menu's "Policy budget…" and "Cache layout…" (issue 25, item 7) on synthetic:tiny:
// each is reachable from the menu and starts at what the session runs; values the session takes
// reach its Frame and its trace (the same Session calls as the `.kvs` budget and layout
// commands, so replay, undo and forks repeat them); values it refuses keep the dialog open with
// the message beside the field it is about, and change nothing: not the Frame, not the trace.
#include <algorithm>

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPointer>
#include <QSpinBox>
#include <QtTest>

#include "app/gui/budget_dialog.h"
#include "app/gui/cache_layout_dialog.h"
#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "core/session/trace.h"
#include "frame_builder.h"
#include "window_test_support.h"

using namespace kvw;

namespace {

constexpr const char* kPrompt = "In the beginning God created the heaven and the earth";

// The events of the session's trace as the worker saves it now.
std::vector<nlohmann::json> trace_events(SessionController& c) {
    const QString path = QDir::tempPath() + "/kvw_settings_dialogs.ndjson";
    c.saveTrace(path);
    if (!test::wait_idle(c)) return {};
    std::vector<nlohmann::json> events = Trace::read(path.toStdString()).events();
    QFile::remove(path);
    return events;
}

// The Session menu of the window's menu bar.
QMenu* session_menu(MainWindow& w) {
    for (QAction* a : w.menuBar()->actions())
        if (a->menu() && a->text() == "&Session") return a->menu();
    return nullptr;
}

template <class Dialog>
Dialog* opened_from_menu(MainWindow& w, const char* action) {
    QMenu* session = session_menu(w);
    QAction* entry = test::named_action(w, action);
    if (!session || !session->actions().contains(entry)) return nullptr;
    entry->trigger();
    auto* dialog = w.findChild<Dialog*>();
    return dialog && dialog->isVisible() ? dialog : nullptr;
}

}  // namespace

class TestSettingsDialogs : public QObject {
    Q_OBJECT

    // The window on synthetic:tiny with kPrompt and the h2o policy (whose budget is kept).
    void started(SessionController& c, MainWindow& w) {
        w.setBackend("cpu");
        w.setPrompt(kPrompt);
        w.openModel("synthetic:tiny");
        QVERIFY(test::wait_idle(c));
        c.postCommand(command::SetProposer{"h2o"});
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->proposer, std::string("h2o"));
    }

private slots:
    void initTestCase() { test::use_workbench_look(); }

    void the_budget_dialog_sets_the_sessions_budget() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        started(c, w);
        const PolicyOptions before = c.lastFrame()->policy;
        QVERIFY(before.budget != (PolicyBudget{2, 8, 6}));

        QPointer<BudgetDialog> dialog = opened_from_menu<BudgetDialog>(w, "budgetSettings");
        QVERIFY(dialog);
        QCOMPARE(dialog->findChild<QSpinBox*>("sink")->value(), before.budget.sink);
        QCOMPARE(dialog->findChild<QSpinBox*>("window")->value(), before.budget.window);
        dialog->setBudget({2, 8, 6});
        dialog->setSeed("7");
        dialog->submit();
        QVERIFY(test::wait_idle(c));
        QTRY_VERIFY(!dialog);  // accepted: closed and gone

        const FramePtr f = c.lastFrame();
        QCOMPARE(f->policy.budget, (PolicyBudget{2, 8, 6}));
        QCOMPARE(f->policy.seed, uint64_t(7));
        QCOMPARE(f->proposer, std::string("h2o"));
        const std::vector<nlohmann::json> events = trace_events(c);
        QVERIFY(!events.empty());
        const nlohmann::json& last = events.back();
        QCOMPARE(last.value("event", ""), std::string("set_policy_options"));
        QCOMPARE(last["policy"]["sink"].get<int>(), 2);
        QCOMPARE(last["policy"]["budget"].get<int>(), 8);
        QCOMPARE(last["policy"]["window"].get<int>(), 6);
        QCOMPARE(last["policy"]["seed"].get<uint64_t>(), uint64_t(7));
    }

    void a_refused_budget_is_explained_beside_its_field() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        started(c, w);
        const FramePtr before = c.lastFrame();
        const size_t events = trace_events(c).size();

        QPointer<BudgetDialog> dialog = opened_from_menu<BudgetDialog>(w, "budgetSettings");
        QVERIFY(dialog);
        dialog->setBudget({2, 8, 0});  // an empty window: the session refuses it
        dialog->submit();
        QVERIFY(test::wait_idle(c));
        QTRY_VERIFY(dialog && !dialog->waiting());
        QVERIFY(dialog->isVisible());
        QVERIFY2(dialog->errorText("window").contains("window must be >= 1"),
                 qPrintable(dialog->errorText("window")));
        QVERIFY(dialog->errorText("sink").isEmpty());
        QVERIFY(dialog->errorText().isEmpty());
        QCOMPARE(c.lastFrame()->policy, before->policy);
        QCOMPARE(c.lastFrame()->state_hash, before->state_hash);
        QCOMPARE(trace_events(c).size(), events);

        // A seed that is no number is refused by the dialog itself, and nothing is sent.
        dialog->setBudget({2, 8, 6});
        dialog->setSeed("99999999999999999999999");
        dialog->submit();
        QVERIFY(!dialog->waiting());
        QVERIFY(dialog->errorText("window").isEmpty());
        QVERIFY2(dialog->errorText("seed").contains("not a whole number"),
                 qPrintable(dialog->errorText("seed")));
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->policy, before->policy);
        dialog->reject();
    }

    void the_layout_dialog_moves_the_cache_to_a_ring() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        started(c, w);
        const FramePtr before = c.lastFrame();
        QCOMPARE(before->layout, CacheLayout::Contiguous);

        QPointer<CacheLayoutDialog> dialog =
            opened_from_menu<CacheLayoutDialog>(w, "layoutSettings");
        QVERIFY(dialog);
        // Its choices are the layout and ring-mode tables', the ring's fields off until a ring.
        auto* layouts = dialog->findChild<QComboBox*>("layout");
        QCOMPARE(layouts->count(), int(std::size(kCacheLayoutNames)));
        QCOMPARE(layouts->currentText(), QString("contiguous"));
        QCOMPARE(dialog->findChild<QComboBox*>("ringMode")->count(),
                 int(std::size(kRingModeNames)));
        QVERIFY(!dialog->findChild<QSpinBox*>("ringSize")->isEnabled());
        QCOMPARE(dialog->findChild<QSpinBox*>("ringSize")->value(), before->capacity);

        const int rows = before->layers[0].rows();
        dialog->setCacheLayout(CacheLayout::Ring);
        QVERIFY(dialog->findChild<QSpinBox*>("ringSize")->isEnabled());
        // h2o keeps its sink + budget + window rows: the ring must hold them (issue 26 item 3).
        const PolicyBudget& kept = before->policy.budget;
        const int ring_size = std::max(rows + 20, kept.sink + kept.budget + kept.window);
        dialog->setRing({RingMode::Pointer, 2, 1, false}, ring_size);
        dialog->submit();
        QVERIFY(test::wait_idle(c));
        QTRY_VERIFY(!dialog);

        const FramePtr f = c.lastFrame();
        QCOMPARE(f->layout, CacheLayout::Ring);
        QCOMPARE(f->ring_options, (RingOptions{RingMode::Pointer, 2, 1, false}));
        QCOMPARE(f->capacity, ring_size);
        QCOMPARE(f->state_hash, before->state_hash);  // rows copied, not changed
        const nlohmann::json last = trace_events(c).back();
        QCOMPARE(last.value("event", ""), std::string("set_layout"));
        QCOMPARE(last.value("name", ""), std::string("ring"));
        QCOMPARE(last["capacity"].get<int>(), ring_size);
        QCOMPARE(last["ring"]["mode"].get<std::string>(), std::string("pointer"));
    }

    void a_refused_layout_is_explained_beside_its_field() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        started(c, w);
        const FramePtr before = c.lastFrame();
        const size_t events = trace_events(c).size();
        const int rows = before->layers[0].rows();

        QPointer<CacheLayoutDialog> dialog =
            opened_from_menu<CacheLayoutDialog>(w, "layoutSettings");
        QVERIFY(dialog);
        // A ring below the h2o policy's sink + budget + window, beside T, naming the budget.
        const PolicyBudget& kept = before->policy.budget;
        dialog->setCacheLayout(CacheLayout::Ring);
        dialog->setRing({RingMode::Roll, 0, 1, false}, kept.sink + kept.budget + kept.window - 1);
        dialog->submit();
        QVERIFY(test::wait_idle(c));
        QTRY_VERIFY(dialog && !dialog->waiting());
        QVERIFY2(dialog->errorText("capacity").contains("budget"),
                 qPrintable(dialog->errorText("capacity")));
        // The rest are the ring's own refusals, without a policy budget in the way.
        c.postCommand(command::SetProposer{"manual"});
        QVERIFY(test::wait_idle(c));
        // A ring smaller than the rows a layer holds.
        dialog->setCacheLayout(CacheLayout::Ring);
        dialog->setRing({RingMode::Roll, 0, 1, false}, rows - 2);
        dialog->submit();
        QVERIFY(test::wait_idle(c));
        QTRY_VERIFY(dialog && !dialog->waiting());
        QVERIFY(dialog->isVisible());
        QVERIFY2(dialog->errorText("capacity").contains("exceeds the capacity"),
                 qPrintable(dialog->errorText("capacity")));
        QVERIFY(dialog->errorText("tokens-per-frame").isEmpty());

        // lut needs N to divide the T - S ring rows.
        const int sinks = (rows + 1) % 2 == 1 ? 1 : 2;  // T - S = rows + 2 - S is odd
        dialog->setRing({RingMode::Lut, sinks, 2, false}, rows + 2);
        dialog->submit();
        QVERIFY(test::wait_idle(c));
        QTRY_VERIFY(dialog && !dialog->waiting());
        QVERIFY2(dialog->errorText("tokens-per-frame").contains("does not divide"),
                 qPrintable(dialog->errorText("tokens-per-frame")));
        QVERIFY(dialog->errorText("capacity").isEmpty());  // the old error went

        QCOMPARE(c.lastFrame()->layout, CacheLayout::Contiguous);
        QCOMPARE(c.lastFrame()->capacity, before->capacity);
        QCOMPARE(c.lastFrame()->state_hash, before->state_hash);
        QCOMPARE(trace_events(c).size(), events + 1);  // set_proposer manual alone
        dialog->reject();
        QTRY_VERIFY(!dialog);
    }
};

QTEST_MAIN(TestSettingsDialogs)
#include "test_settings_dialogs.moc"
