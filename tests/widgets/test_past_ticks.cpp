// Past ticks in the window (ARCHITECTURE §16) on synthetic:tiny: showing tick k puts every view
// but the timeline and the log on the Frame that tick had, equal table for table to the views of
// a session made independently and stopped at tick k; the live session is not touched (its state
// hash, and Step keeps driving it); the banner and the status bar say which tick is shown; an
// edit asked while the past is shown is refused and returns to live; the timeline picks a tick
// by a click; and a record's born / left ticks are the ticks its edits happened at.
#include <QLabel>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QSlider>
#include <QtTest>

#include "app/gui/history_bar.h"
#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "app/gui/view_docks.h"
#include "core/session/session.h"
#include "frame_builder.h"
#include "qcustomplot.h"
#include "widgets/record_story.h"
#include "widgets/record_view.h"
#include "widgets/timeline_view.h"
#include "widgets/view_registry.h"
#include "window_test_support.h"

using namespace kvw;

namespace {

const char* const kPrompt = "The cache remembers what the model was told";

// The commands both the window and the independent session run: two ticks, a delete of row 2
// applied at tick 2, three more ticks (live tick 5).
const ActionList kDelete = {Action{DeleteAction{2}, {}}};

// A view's table as CSV without its wall-clock columns (a replay's step times are its own).
QString table_text(const FrameView& view) {
    ViewTable t = view.table();
    for (qsizetype c = t.columns.size(); c-- > 0;) {
        if (!t.columns[c].endsWith("_ms")) continue;
        t.columns.removeAt(c);
        for (QVariantList& row : t.rows) row.removeAt(c);
    }
    return view_table_csv(t);
}

// The independent reference: a fresh session on the same model, stopped at `tick`.
FramePtr reference_frame(int64_t tick) {
    SessionOptions options;
    options.model = "synthetic:tiny";
    options.backend = "cpu";
    Session s(options);
    s.start(kPrompt);
    while (s.tick() < tick) {
        s.step();
        if (s.tick() == 2) s.apply_now(kDelete);
    }
    return s.frame();
}

}  // namespace

class TestPastTicks : public QObject {
    Q_OBJECT

    void record(SessionController& c, MainWindow& w) {
        w.setBackend("cpu");
        w.setPrompt(kPrompt);
        w.openModel("synthetic:tiny");
        QVERIFY(test::wait_idle(c));
        c.step(2);
        c.postCommand(command::ApplyNow{kDelete});
        c.step(3);
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->tick, int64_t(5));
    }

private slots:
    void initTestCase() { test::use_workbench_look(); }

    void views_show_the_tick_a_fresh_session_had() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        record(c, w);
        const uint64_t live_hash = c.lastFrame()->state_hash;
        const QString live_tokens = table_text(*w.docks().view("tokens"));

        for (const int64_t k : {int64_t(3), int64_t(1)}) {  // after the delete, then before it
            w.showTick(k);
            QVERIFY(test::wait_idle(c));
            QVERIFY(w.pastFrame());
            QCOMPARE(w.pastFrame()->tick, k);
            const FramePtr reference = reference_frame(k);
            QCOMPARE(w.pastFrame()->state_hash, reference->state_hash);
            for (const ViewInfo& info : registered_views()) {
                FrameView* shown = w.docks().view(info.name);
                if (shown->showsHistory()) continue;
                std::unique_ptr<FrameView> fresh(info.create(nullptr));
                fresh->setFrame(reference);
                QVERIFY2(table_text(*shown) == table_text(*fresh),
                         qPrintable(info.name + " differs at tick " + QString::number(k)));
            }
            // The live session is where it was.
            QCOMPARE(c.lastFrame()->tick, int64_t(5));
            QCOMPARE(c.lastFrame()->state_hash, live_hash);
            QVERIFY(w.historyBar().bannerText().contains(QString("past tick %1 of 5").arg(k)));
            QCOMPARE(w.findChild<QLabel*>("scrubBanner")->text(), w.historyBar().bannerText());
            QCOMPARE(w.findChild<QSlider*>("tickSlider")->value(), int(k));
            QVERIFY(test::named_action(w, "backToLive")->isEnabled());
            QVERIFY(w.docks().view("timeline")->findChild<QCustomPlot*>());
            QCOMPARE(static_cast<TimelineView*>(w.docks().view("timeline"))->shownTick(), k);
        }

        // Step drives the live session; the views stay on the past tick.
        const QString past_tokens = table_text(*w.docks().view("tokens"));
        c.step(1);
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->tick, int64_t(6));
        QCOMPARE(w.pastFrame()->tick, int64_t(1));
        QCOMPARE(table_text(*w.docks().view("tokens")), past_tokens);
        QVERIFY(w.historyBar().bannerText().contains("past tick 1 of 6"));

        // Back to live: the views show the live Frame again.
        test::named_action(w, "backToLive")->trigger();
        QVERIFY(!w.pastFrame());
        QVERIFY(w.historyBar().bannerText().startsWith("Live · tick 6"));
        std::unique_ptr<FrameView> fresh(registered_views().front().create(nullptr));
        fresh->setFrame(c.lastFrame());
        QCOMPARE(table_text(*w.docks().view(registered_views().front().name)), table_text(*fresh));
        QVERIFY(live_tokens != table_text(*w.docks().view("tokens")));  // tick 6 is not tick 5
    }

    void an_edit_while_the_past_is_shown_is_refused() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        record(c, w);
        const uint64_t live_hash = c.lastFrame()->state_hash;
        w.showTick(2);
        QVERIFY(test::wait_idle(c));
        QVERIFY(w.pastFrame());
        emit w.docks().view("actions")->actionsRequested(kDelete, true);
        QVERIFY(test::wait_idle(c));
        QVERIFY(!w.pastFrame());
        QCOMPARE(c.lastFrame()->state_hash, live_hash);
        QVERIFY(
            test::log_text(w).contains("not done: apply actions while the views showed tick 2"));
        // A tick never reached is an error that leaves the window live.
        w.showTick(40);  // at or past the live tick: the live session
        QVERIFY(!w.pastFrame());
    }

    // Alt+Left / Alt+Right walk the shown tick back and forth; past the last one is live.
    void keys_step_through_past_ticks() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        record(c, w);
        QTest::keyClick(&w, Qt::Key_Left, Qt::AltModifier);
        QVERIFY(test::wait_idle(c));
        QVERIFY(w.pastFrame());
        QCOMPARE(w.pastFrame()->tick, int64_t(4));
        QTest::keyClick(&w, Qt::Key_Left, Qt::AltModifier);
        QVERIFY(test::wait_idle(c));
        QCOMPARE(w.pastFrame()->tick, int64_t(3));
        QCOMPARE(w.pastFrame()->state_hash, reference_frame(3)->state_hash);
        QTest::keyClick(&w, Qt::Key_Right, Qt::AltModifier);
        QVERIFY(test::wait_idle(c));
        QCOMPARE(w.pastFrame()->tick, int64_t(4));
        QTest::keyClick(&w, Qt::Key_Right, Qt::AltModifier);
        QVERIFY(test::wait_idle(c));
        QVERIFY(!w.pastFrame());  // tick 5 is the live one
        QCOMPARE(c.lastFrame()->tick, int64_t(5));
    }

    void a_click_on_the_timeline_shows_that_tick() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        record(c, w);
        auto* timeline = static_cast<TimelineView*>(w.docks().view("timeline"));
        w.showView("timeline");
        QCustomPlot* plot = timeline->plot();
        plot->replot();
        QCPAxisRect* panel = plot->axisRects().front();
        const QPoint at(int(panel->axis(QCPAxis::atBottom)->coordToPixel(2.0)),
                        panel->rect().center().y());
        QTest::mouseClick(plot, Qt::LeftButton, {}, at);
        QVERIFY(test::wait_idle(c));
        QVERIFY(w.pastFrame());
        QCOMPARE(w.pastFrame()->tick, int64_t(2));
        QCOMPARE(timeline->shownTick(), int64_t(2));
        QCOMPARE(timeline->history().points().back().tick, int64_t(5));  // still the live run
    }

    void a_records_ticks_are_those_of_its_edits() {
        // Row 3 is deleted on layers 0-1 at tick 2, then on layers 2-3 at tick 4 (where it
        // still is row 3: nothing before it moved); the record the prompt made is born at 0.
        SessionOptions options;
        options.model = "synthetic:tiny";
        options.backend = "cpu";
        Session s(options);
        s.start(kPrompt);
        const int64_t id = s.frame()->layers[0].pos2ledger[3];
        s.step();
        s.step();
        s.apply_now({Action{DeleteAction{3}, {0, 1}}});
        s.step();
        s.step();
        s.apply_now({Action{DeleteAction{3}, {2, 3}}});
        const FramePtr f = s.frame();
        const std::vector<RecordTick> ticks = record_ticks(*f, id);
        QCOMPARE(ticks.size(), size_t(3));
        QCOMPARE(ticks[0].tick, int64_t(0));
        QCOMPARE(ticks[0].what, std::string("born (prompt)"));
        QVERIFY(ticks[0].layers.empty());
        QCOMPARE(ticks[1].tick, int64_t(2));
        QCOMPARE(ticks[1].what, std::string("deleted"));
        QCOMPARE(ticks[1].layers, (std::vector<int>{0, 1}));
        QCOMPARE(ticks[2].tick, int64_t(4));
        QCOMPARE(ticks[2].layers, (std::vector<int>{2, 3}));
        QCOMPARE(layer_runs_text({0, 1, 2, 5}), std::string("layers 0–2, 5"));
        QCOMPARE(layer_runs_text({3}), std::string("layer 3"));
        // A generated record is born at the tick that sampled it.
        const int64_t last = f->layers[0].pos2ledger.back();
        QCOMPARE(record_ticks(*f, last).front().tick, f->tick);
        QCOMPARE(record_ticks(*f, last).front().what, std::string("born (generated)"));

        // The record view lists them as links; a click asks for that tick.
        RecordView view;
        view.setFrame(f);
        view.findChild<QSpinBox*>("record")->setValue(int(id));
        auto* label = view.findChild<QLabel*>("ticks");
        QCOMPARE(label->text(), record_ticks_html(*f, id));
        QVERIFY(label->text().contains("<a href=\"2\">tick 2</a> deleted (layers 0–1)"));
        QSignalSpy chosen(&view, &FrameView::tickChosen);
        emit label->linkActivated("4");
        QCOMPARE(chosen.size(), 1);
        QCOMPARE(chosen.front().front().toLongLong(), qint64(4));
    }

    // An opened trace's timeline has every tick it repeated (not only the last), and each one
    // shows the Frame the saving session had there.
    void an_opened_traces_ticks_are_on_the_timeline() {
        const QString path = QDir::tempPath() + "/kvw_past_ticks_open.ndjson";
        SessionOptions options;
        options.model = "synthetic:tiny";
        options.backend = "cpu";
        std::vector<uint64_t> hashes;  // [tick] of the saving session
        {
            Session s(options);
            s.start(kPrompt);
            hashes.push_back(s.state_hash());
            while (s.tick() < 7) {
                s.step();
                hashes.push_back(s.state_hash());  // tick k's past Frame is before its edits
                if (s.tick() == 2) s.apply_now(kDelete);
            }
            s.trace().write(path.toStdString());
        }
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        w.openTrace(path);
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->tick, int64_t(7));
        const auto* timeline = static_cast<const TimelineView*>(w.docks().view("timeline"));
        const ViewTable t = timeline->table();
        QCOMPARE(t.rows.size(), qsizetype(8));  // ticks 0 to 7
        for (int k = 0; k <= 7; ++k) QCOMPARE(t.rows[k][0].toLongLong(), qint64(k));
        QCOMPARE(w.findChild<QSlider*>("tickSlider")->maximum(), 7);
        for (const int64_t k : {int64_t(0), int64_t(2), int64_t(5)}) {
            w.showTick(k);
            QVERIFY(test::wait_idle(c));
            QVERIFY(w.pastFrame());
            QCOMPARE(w.pastFrame()->tick, k);
            QCOMPARE(w.pastFrame()->state_hash, hashes[size_t(k)]);
            QCOMPARE(timeline->shownTick(), k);
        }
        QFile::remove(path);
    }
};

QTEST_MAIN(TestPastTicks)
#include "test_past_ticks.moc"
