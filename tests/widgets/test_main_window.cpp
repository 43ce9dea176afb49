// The window as a person drives it, on synthetic:tiny: a model load that fails or is cancelled
// leaves the session exactly as it was (tick, edits) and says so in the log and the status bar;
// a click during a Run never waits behind the run nor throws its ticks away; what happened is
// logged once and an old error leaves the status bar; at 1,024 × 700 nothing needs more room and
// a saved geometry is brought back onto the screen; a long error wraps in the status bar, beside
// the busy indicator; a finished Run and an export say so; the script reference fits the screen.
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "app/gui/status_line.h"
#include "app/gui/view_controls.h"
#include "app/gui/view_docks.h"
#include "core/backend/backend_registry.h"
#include "core/script/script_reference.h"
#include "frame_builder.h"
#include "widgets/layer_maps_view.h"
#include "widgets/record_view.h"
#include "widgets/token_strip_view.h"
#include "window_test_support.h"

using namespace kvw;

namespace {

constexpr const char* kPrompt = "The cache remembers what the model was told";

struct Snapshot {
    int64_t tick;
    uint64_t hash;
    std::vector<int64_t> layer0;
};

Snapshot snapshot(const SessionController& c) {
    const FramePtr f = c.lastFrame();
    return {f->tick, f->state_hash, f->layers[0].pos2ledger.to_vector()};
}

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

    // A window with synthetic:tiny started on kPrompt, three ticks run and row 2 deleted.
    void edited(SessionController& c, MainWindow& w) {
        w.setBackend("cpu");
        w.setPrompt(kPrompt);
        w.openModel("synthetic:tiny");
        QVERIFY(test::wait_idle(c));
        c.step(3);
        c.postCommand(command::ApplyNow{{Action{DeleteAction{2}, {}}}});
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->tick, int64_t(3));
    }

    test::ScratchSettings settings_;

private slots:
    void initTestCase() { test::use_workbench_look(); }

    void failed_load_keeps_the_tick_and_the_edits() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        edited(c, w);
        const Snapshot before = snapshot(c);

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString not_a_model = dir.filePath("notes.gguf");
        QFile file(not_a_model);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("these are notes, not a model\n");
        file.close();
        const QString hf_without_config = dir.filePath("hf");
        QVERIFY(QDir().mkpath(hf_without_config));

        QSignalSpy errors(&c, &SessionController::errorOccurred);
        for (const QString& spec : {not_a_model, hf_without_config, QString("/no/such.gguf")}) {
            w.openModel(spec);  // with the toolbar's prompt set, as the window does it
            QVERIFY(test::wait_idle(c));
            const Snapshot after = snapshot(c);
            QCOMPARE(after.tick, before.tick);
            QCOMPARE(after.hash, before.hash);
            QCOMPARE(after.layer0, before.layer0);
            QVERIFY2(errors.last().at(0).toString().contains(spec),
                     qPrintable(errors.last().at(0).toString()));
            const QString shown = test::status_message(w);
            QVERIFY2(shown.contains("stays as it was (tick 3)"), qPrintable(shown));
        }
        QCOMPARE(errors.count(), 3);
        QTRY_VERIFY(test::log_text(w).contains("the session stays as it was (tick 3)"));

        // The session still runs from where it was.
        c.step(1);
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->tick, int64_t(4));
        QCOMPARE(c.lastFrame()->model.source, std::string("synthetic:tiny"));
    }

    void cancelled_load_keeps_the_session_and_says_so() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        edited(c, w);
        const Snapshot before = snapshot(c);
        QSignalSpy notices(&c, &SessionController::noticeOccurred);
        w.openModel("synthetic:tiny");
        c.cancel();  // skipped before it starts, or the loaded model dropped after
        QVERIFY(test::wait_idle(c));
        QCOMPARE(snapshot(c).hash, before.hash);
        QCOMPARE(snapshot(c).tick, before.tick);
        QCOMPARE(notices.count(), 1);
        const QString notice = notices.last().at(0).toString();
        QVERIFY2(notice.contains("load synthetic:tiny") && notice.contains("cancel"),
                 qPrintable(notice));
        QCOMPARE(test::status_message(w), notice);
        QTRY_VERIFY(test::log_text(w).contains(notice));
    }

    void click_during_a_run_does_not_discard_ticks() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        edited(c, w);
        QAction* start = test::named_action(w, "start");
        QAction* step = test::named_action(w, "step");
        QAction* run = test::named_action(w, "run");
        w.findChild<QSpinBox*>("runTicks")->setValue(5000);

        run->trigger();
        QCOMPARE(run->text(), QString("Pause"));
        // What would throw the run's ticks away, or start another, cannot be clicked now.
        QVERIFY(!start->isEnabled());
        QVERIFY(!step->isEnabled());
        QTRY_VERIFY(c.lastFrame()->tick >= 5);  // the run is going

        test::named_action(w, "rebuild")->trigger();  // pauses the run, then rebuilds at once
        QCOMPARE(run->text(), QString("Run"));
        QVERIFY(test::wait_idle(c));
        const int64_t tick = c.lastFrame()->tick;
        QVERIFY2(tick > 5 && tick < 3 + 5000, qPrintable(QString::number(tick)));
        QVERIFY(start->isEnabled());
        QVERIFY(step->isEnabled());
        QTRY_VERIFY(test::log_text(w).contains(
            QString("rebuilt the cache from the mirror at tick %1").arg(tick)));
        QVERIFY(test::log_text(w).contains(QString("paused at tick %1").arg(tick)));

        // The ticks stay: the next step continues from them.
        step->trigger();
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->tick, tick + 1);
    }

    // One selection model: after an edit moves the selected record, the token strip, the maps and
    // Token across layers all show the row that holds it (they used to keep the row number,
    // which then held another token, while Token across layers followed the record).
    void selection_follows_its_record_in_every_view() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        edited(c, w);
        const auto& views = w.docks();
        auto* strip = qobject_cast<TokenStripView*>(views.view("tokens"));
        auto* maps = qobject_cast<LayerMapsView*>(views.view("maps"));
        auto* record = qobject_cast<RecordView*>(views.view("record"));
        QVERIFY(strip && maps && record);
        const std::vector<int64_t> rows = c.lastFrame()->layers[0].pos2ledger.to_vector();
        QVERIFY(rows.size() > 8);
        const int64_t chosen = rows[6];
        w.select(0, 6);
        QCOMPARE(w.selectedRecord(), chosen);

        c.postCommand(
            command::ApplyNow{{Action{DeleteAction{3}, {}}}});  // a row before it: it moves up one
        QVERIFY(test::wait_idle(c));
        QTRY_COMPARE(w.row(), 5);
        QCOMPARE(c.lastFrame()->layers[0].pos2ledger[5], chosen);
        QCOMPARE(strip->firstRow(), 5);
        QCOMPARE(maps->selectedRow(), 5);
        QCOMPARE(record->recordId(), chosen);

        w.stepLayer(+1);  // another layer: the row that holds the record there
        QCOMPARE(w.layer(), 1);
        QCOMPARE(c.lastFrame()->layers[1].pos2ledger[size_t(w.row())], chosen);
        QCOMPARE(record->recordId(), chosen);

        c.postCommand(command::ApplyNow{
            {Action{DeleteAction{5}, {}}}});  // the record itself: no row holds it
        QVERIFY(test::wait_idle(c));
        QTRY_COMPARE(w.row(), -1);
        QCOMPARE(strip->firstRow(), -1);
        QCOMPARE(maps->selectedRow(), -1);
        QCOMPARE(record->recordId(), chosen);  // its story, removal included, stays in view
    }

    // A Step asked for while a model loads used to wait behind the load and then run on the new
    // model: Start, Step and Run are disabled until the load is over.
    void no_step_while_a_model_loads() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        edited(c, w);
        QAction* step = test::named_action(w, "step");
        QAction* run = test::named_action(w, "run");
        QAction* start = test::named_action(w, "start");
        w.openModel("synthetic:tiny");
        QVERIFY(!step->isEnabled());
        QVERIFY(!run->isEnabled());
        QVERIFY(!start->isEnabled());
        step->trigger();  // what a click or the N key does: nothing, as the action is disabled
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->tick, int64_t(0));  // the new model's prompt, not stepped
        QTRY_VERIFY(step->isEnabled());
        QVERIFY(run->isEnabled());
        QVERIFY(start->isEnabled());
        // A load that fails gives the controls back too.
        w.openModel("/nonexistent/model.gguf");
        QVERIFY(!step->isEnabled());
        QVERIFY(test::wait_idle(c));
        QTRY_VERIFY(step->isEnabled());
    }

    // Each thing that happened is one log line; a later success clears an old error from the
    // status bar; Apply now shows its own timings, not the previous step's.
    void feedback_is_said_once_and_goes_stale() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        edited(c, w);
        const int rows = c.lastFrame()->layers[0].rows();
        c.postCommand(command::Inject{{Action{DeleteAction{rows + 40}, {}}}});
        QVERIFY(test::wait_idle(c));
        const QString fault = QString("pos = %1 is outside layer 0").arg(rows + 40);
        QTRY_VERIFY(test::log_text(w).contains(fault));
        QCOMPARE(test::log_text(w).count(fault),
                 1);  // the session and the window once logged it both
        QVERIFY(test::status_message(w).startsWith("Error: inject"));

        c.step(1);
        QVERIFY(test::wait_idle(c));
        QCOMPARE(test::status_message(w), QString());  // the error is old news
        QVERIFY(c.lastFrame()->timings.sample_ms > 0 || c.lastFrame()->timings.total_ms > 0);
        // The tick's forward pass is a part of its Step 4.
        QVERIFY(c.lastFrame()->timings.forward_ms > 0);
        QVERIFY(c.lastFrame()->timings.forward_ms <= c.lastFrame()->timings.apply_ms);

        c.postCommand(command::ApplyNow{{Action{DeleteAction{3}, {}}}});
        QVERIFY(test::wait_idle(c));
        const StepTimings& t = c.lastFrame()->timings;
        QCOMPARE(t.sample_ms, 0.0);  // no sampling, no proposer ran
        QCOMPARE(t.propose_ms, 0.0);
        QCOMPARE(t.total_ms, t.apply_ms);
        QCOMPARE(t.forward_ms, 0.0);  // a delete runs no forward pass
        QTRY_VERIFY(test::log_text(w).contains("applied 1 action(s) now at tick 4"));

        c.postCommand(command::Rebuild{});
        c.postCommand(command::Drift{});
        c.postCommand(command::SetProposer{"pair-merge"});
        c.postCommand(command::SetRopePolicy{RopePolicy::Reindex});
        c.postCommand(command::SetGuard{false});
        QVERIFY(test::wait_idle(c));
        QTRY_VERIFY(test::log_text(w).contains("guard off"));
        const QString log = test::log_text(w);
        QVERIFY(log.contains("drift at tick 4: none"));
        QVERIFY(!log.contains("diverging layer -1"));
        QVERIFY(log.contains("policy: pair-merge"));
        QVERIFY(log.contains("RoPE policy: reindex"));
    }

    // The menus a desktop user looks for, and the keys: N steps, ] and [ change the layer, R runs
    // and pauses; the Session menu's entries are the toolbar's (disabled with them in a Run).
    void menus_and_shortcuts() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        edited(c, w);
        QStringList menus;
        for (QAction* a : w.menuBar()->actions()) menus << a->text().remove('&');
        QCOMPARE(menus, QStringList({"File", "Edit", "View", "Session", "Help"}));

        QTest::keyClick(&w, Qt::Key_N);
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->tick, int64_t(4));
        QTest::keyClick(&w, Qt::Key_BracketRight);
        QTest::keyClick(&w, Qt::Key_BracketRight);
        QCOMPARE(w.layer(), 2);
        QTest::keyClick(&w, Qt::Key_BracketLeft);
        QCOMPARE(w.layer(), 1);

        w.findChild<QSpinBox*>("runTicks")->setValue(5000);
        QTest::keyClick(&w, Qt::Key_R);
        QVERIFY(!test::named_action(w, "step")->isEnabled());
        QTRY_VERIFY(c.lastFrame()->tick >= 6);
        QTest::keyClick(&w, Qt::Key_R);  // Pause
        QVERIFY(test::wait_idle(c));
        const int64_t tick = c.lastFrame()->tick;
        QVERIFY2(tick < 4 + 5000, qPrintable(QString::number(tick)));
        QTest::keyClick(&w, Qt::Key_N);  // the ticks stay, the next one follows them
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->tick, tick + 1);
    }

    // Session → K storage / V storage re-encode the live cache: each choice changes its half
    // and keeps the other, the rows stay the same records, and the menu checks what the Frame
    // says is in use.
    void kv_storage_menus_reencode_the_cache() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        edited(c, w);
        const std::vector<int64_t> rows = c.lastFrame()->layers[0].pos2ledger.to_vector();
        QCOMPARE(QString::fromStdString(c.lastFrame()->k_type), QString("f32"));
        test::named_action(w, "k-type-bf16")->trigger();
        QVERIFY(test::wait_idle(c));
        QCOMPARE(QString::fromStdString(c.lastFrame()->k_type), QString("bf16"));
        QCOMPARE(QString::fromStdString(c.lastFrame()->v_type), QString("f32"));
        test::named_action(w, "v-type-fp8")->trigger();
        QVERIFY(test::wait_idle(c));
        QCOMPARE(QString::fromStdString(c.lastFrame()->k_type), QString("bf16"));
        QCOMPARE(QString::fromStdString(c.lastFrame()->v_type), QString("fp8"));
        QCOMPARE(c.lastFrame()->layers[0].pos2ledger, rows);
        QVERIFY(c.lastFrame()->all_invariants_pass());

        auto* menu = qobject_cast<QMenu*>(test::named_action(w, "k-type-bf16")->parent());
        QVERIFY(menu);
        emit menu->aboutToShow();
        QVERIFY(test::named_action(w, "k-type-bf16")->isChecked());
        QVERIFY(!test::named_action(w, "k-type-f32")->isChecked());
    }

    // Session → Backend moves the live session to another backend and keeps its rows (the
    // state hash stays); Drift then shows the difference between the two, under the
    // tolerance, and the menu checks the backend the Frame names.
    void backend_menu_switches_the_live_session() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        edited(c, w);
        c.postCommand(command::Rebuild{});  // no stale rows from the edit
        QVERIFY(test::wait_idle(c));
        const uint64_t hash = c.lastFrame()->state_hash;
        test::named_action(w, "backend-cpu:scalar")->trigger();
        QVERIFY(test::wait_idle(c));
        QCOMPARE(QString::fromStdString(c.lastFrame()->backend), QString("cpu:scalar"));
        QCOMPARE(c.lastFrame()->state_hash, hash);
        QVERIFY(c.lastFrame()->all_invariants_pass());
        auto* menu = qobject_cast<QMenu*>(test::named_action(w, "backend-cpu")->parent());
        QVERIFY(menu);
        emit menu->aboutToShow();
        QVERIFY(test::named_action(w, "backend-cpu:scalar")->isChecked());
        QVERIFY(!test::named_action(w, "backend-cpu")->isChecked());

        c.postCommand(command::Drift{});
        QVERIFY(test::wait_idle(c));
        const FramePtr f = c.lastFrame();
        QVERIFY(f->drift_measured);
        // `cpu` is the scalar kernel only on a CPU without AVX2: then there is nothing to see.
        std::string why;
        const bool differ = backend_available("cpu:avx2", why);
        QVERIFY2(differ ? f->max_drift > 0 : f->max_drift == 0,
                 qPrintable(QString::number(double(f->max_drift))));
        QVERIFY(f->max_drift < f->drift_tolerance);
    }

    // A script's `click VIEW NAME` with a wrong name lists the view's controls, not the parts
    // Qt's own widgets are made of.
    void unknown_control_lists_named_controls_only() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        const QString problem = click_control(w.docks().view("actions"), "nope");
        QVERIFY2(problem.contains("pos1") && problem.contains("apply"), qPrintable(problem));
        QVERIFY2(!problem.contains("qt_"), qPrintable(problem));
    }

    // --size 1024x700 is what the window gets: nothing in it needs more; and a geometry saved on
    // a larger screen is brought back onto this one.
    void small_and_restored_windows_fit() {
        SessionController c;
        {
            MainWindow w(c, {false, QSize(1024, 700)});
            const QSize needed = w.minimumSizeHint();
            QVERIFY2(needed.width() <= 1024 && needed.height() <= 700,
                     qPrintable(QString("%1x%2").arg(needed.width()).arg(needed.height())));
            w.show();
            w.setGeometry(-500, 4000, 5000, 4000);  // saved on a wall of screens
            w.close();
        }
        MainWindow w(c, {false, QSize(1024, 700)});
        const QRect screen = w.screen()->availableGeometry();
        QVERIFY2(screen.contains(w.geometry()),
                 qPrintable(
                     QString("%1,%2 %3x%4").arg(w.x()).arg(w.y()).arg(w.width()).arg(w.height())));
    }

    // A long error is read whole: the status bar's message wraps onto the lines it needs beside
    // the tick and the other labels (one line, cut off under "tick N", before).
    void long_errors_wrap_in_the_status_bar() {
        SessionController c;
        MainWindow w(c, {true, QSize(1024, 700)});
        w.show();
        edited(c, w);
        const int rows = c.lastFrame()->layers[0].rows();
        ActionList refused;
        for (int i = 0; i < 8; ++i) refused.push_back(Action{DeleteAction{rows + 100 + i}, {}});
        c.postCommand(command::ApplyNow{refused});
        QVERIFY(test::wait_idle(c));
        const QString last = QString("pos = %1 is outside layer 0").arg(rows + 107);
        QVERIFY2(test::status_message(w).startsWith("Error: apply: rejected") &&
                     test::status_message(w).contains(last),
                 qPrintable(test::status_message(w)));
        auto* message = w.findChild<QLabel*>("statusMessage");
        const int lines_needed = message->heightForWidth(message->width());
        QVERIFY(lines_needed > 2 * message->fontMetrics().lineSpacing());  // it does wrap
        // As tall as its lines, and no taller: the bar took the label's preferred shape, half
        // as wide and twice as tall, before.
        QTRY_VERIFY2(message->height() >= lines_needed &&
                         message->height() < lines_needed + message->fontMetrics().lineSpacing(),
                     qPrintable(QString("%1 for %2").arg(message->height()).arg(lines_needed)));
        QVERIFY(w.statusBar()->rect().contains(message->geometry()));
        for (const QLabel* label : w.statusBar()->findChildren<QLabel*>())
            if (label != message && label->isVisible())
                QVERIFY2(!label->geometry().intersects(message->geometry()),
                         qPrintable(label->text()));
    }

    // A notice that comes while the busy indicator shows (an undo's, a paused Run's) sits
    // beside the indicator, whichever comes first: the indicator, shown after its delay, drew
    // over the message before.
    void the_busy_indicator_leaves_the_message_readable() {
        QMainWindow window;
        window.resize(1024, 200);
        StatusLine line(window.statusBar());
        window.show();
        auto* message = window.statusBar()->findChild<QLabel*>("statusMessage");
        auto* progress = window.statusBar()->findChild<QProgressBar*>();
        QVERIFY(message && progress);
        for (const bool notice_first : {true, false}) {
            line.setBusy(true, "undo");
            if (notice_first) line.showNotice("undo 1: tick 2, state hash 0123456789abcdef");
            QTRY_VERIFY(progress->isVisible());  // after its delay
            if (!notice_first) line.showNotice("undo 1: tick 2, state hash 0123456789abcdef");
            QTRY_VERIFY(message->isVisible());
            QTest::qWait(20);  // the status bar's layout settles
            QVERIFY(!message->geometry().intersects(progress->geometry()));
            line.setBusy(false, {});
            QVERIFY(message->isVisible());  // the command ended: its notice stays
            QVERIFY(!progress->isVisible());
        }
    }

    // The status bar names the backend, the model and its family (issue 28: a Qwen file says
    // qwen2, so the user sees which switches of the forward pass it runs).
    void status_names_the_model_family() {
        QMainWindow window;
        StatusLine line(window.statusBar());
        auto frame = test::make_frame(2, 16);
        frame->backend = "cpu";
        frame->model.source = "Qwen2.5-0.5B-Instruct";
        frame->model.architecture = "qwen2";
        line.setFrame(frame);
        auto* model = window.statusBar()->findChild<QLabel*>("statusModel");
        QVERIFY(model);
        QCOMPARE(model->text(), QString("cpu · Qwen2.5-0.5B-Instruct · qwen2"));
    }

    // A Run that goes its whole way and an export each say so in the log and the status bar.
    void finished_run_and_export_are_confirmed() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        edited(c, w);
        w.findChild<QSpinBox*>("runTicks")->setValue(5);
        test::named_action(w, "run")->trigger();
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->tick, int64_t(8));
        const QString ran = "ran 5 ticks: now at tick 8";
        QTRY_VERIFY(test::log_text(w).contains(ran));
        QCOMPARE(test::status_message(w), ran);

        QTemporaryDir out;
        const QString csv = out.filePath("timeline.csv");
        {
            test::ModalAnswers answers({test::pick_file(csv)});
            test::action_titled(w, "Timeline…")->trigger();  // File ▸ Export view
            QCOMPARE(answers.opened(), 1);
        }
        QVERIFY(QFile::exists(csv));
        QCOMPARE(test::status_message(w), "exported " + csv);
        QTRY_VERIFY(test::log_text(w).contains("exported " + csv));

        const QString bundle = out.filePath("bundle");
        QVERIFY(QDir().mkpath(bundle));
        {
            test::ModalAnswers answers({test::pick_file(bundle)});
            test::action_titled(w, "Export session bundle…")->trigger();
            QCOMPARE(answers.opened(), 1);
        }
        QVERIFY(test::wait_idle(c));  // the worker writes the trace, then says so
        QVERIFY(QFile::exists(QDir(bundle).filePath("trace.ndjson")));
        QTRY_COMPARE(test::status_message(w), "exported session bundle " + bundle);
        QTRY_VERIFY(test::log_text(w).contains("exported session bundle " + bundle));
    }

    // Help ▸ Script language in a window as a person has it: the reference scrolls in a dialog
    // that fits on the screen with its Close button (a message box with the whole reference was
    // taller than the screen, its OK button below it).
    void script_language_help_fits_the_screen() {
        SessionController c;
        MainWindow w(c, {false, QSize(1024, 700)});
        w.show();
        const QRect screen = w.screen()->availableGeometry();
        QRect shown;
        QString reference;
        QStringList buttons_on_screen;
        test::ModalAnswers answers({[&](QWidget* dialog) {
            shown = dialog->frameGeometry();
            auto* browser = dialog->findChild<QTextBrowser*>();
            QVERIFY(browser);
            reference = browser->toPlainText();
            for (const QPushButton* b : dialog->findChildren<QPushButton*>())
                if (b->isVisible() &&
                    screen.contains(QRect(b->mapToGlobal(QPoint(0, 0)), b->size())))
                    buttons_on_screen << b->text().remove('&');
        }});
        test::action_titled(w, "Script language")->trigger();
        QCOMPARE(answers.opened(), 1);
        QVERIFY2(screen.contains(shown), qPrintable(QString("%1,%2 %3x%4")
                                                        .arg(shown.x())
                                                        .arg(shown.y())
                                                        .arg(shown.width())
                                                        .arg(shown.height())));
        QCOMPARE(buttons_on_screen, QStringList{"Close"});
        // The reference's first and last commands: all of it is there to scroll through.
        const QStringList commands =
            QString::fromStdString(script_help_text("")).trimmed().split('\n');
        QVERIFY(reference.contains(commands.first()));
        QVERIFY(reference.contains(commands.last()));
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
