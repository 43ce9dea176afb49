#include "app/gui/main_menus.h"

#include <algorithm>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QInputDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>

#include "app/gui/budget_dialog.h"
#include "app/gui/cache_layout_dialog.h"
#include "app/gui/main_toolbar.h"
#include "app/gui/main_window.h"
#include "app/gui/reference_dialog.h"
#include "app/gui/session_bundle.h"
#include "app/gui/session_controller.h"
#include "app/gui/view_docks.h"
#include "app/gui/wlod_dialog.h"
#include "core/backend/backend_registry.h"
#include "core/cache/kv_storage.h"
#include "core/eval/ab_compare.h"
#include "core/policy/policy_table.h"
#include "core/script/script_reference.h"
#include "widgets/frame_view.h"
#include "widgets/view_export.h"

namespace kvw {

namespace {

// The toolbar action called `name` (main_toolbar.cpp names them), given `keys`.
QAction* toolbar_action(MainWindow& window, const char* name, const QKeySequence& keys) {
    auto* action = window.findChild<QAction*>(name);
    if (!action) qFatal("the toolbar has no action %s", name);
    action->setShortcut(keys);
    action->setToolTip(action->toolTip() + " (" + keys.toString(QKeySequence::NativeText) + ")");
    return action;
}

QString shortcut_table(const QList<QAction*>& actions) {
    QString rows;
    for (const QAction* a : actions)
        if (!a->shortcut().isEmpty())
            rows += "<tr><td><b>" + a->shortcut().toString(QKeySequence::NativeText) +
                    "</b></td><td>" + QString(a->text()).remove('&') + "</td></tr>";
    return "<table cellspacing=4>" + rows + "</table>";
}

// Undo / redo, named snapshots and forks (ARCHITECTURE §15), enabled when the session can do
// them now (none while a Run goes).
void add_edit_menu(MainWindow& window, QMenuBar* bar, QList<QAction*>& keyed) {
    QMenu* edit = bar->addMenu("&Edit");
    QAction* undo = edit->addAction("Undo", QKeySequence::Undo, &window, &MainWindow::undo);
    QAction* redo =
        edit->addAction("Redo", QKeySequence("Ctrl+Shift+Z"), &window, &MainWindow::redo);
    undo->setObjectName("undo");
    redo->setObjectName("redo");
    keyed << undo << redo;
    edit->addSeparator();
    QAction* snapshot = edit->addAction("Save snapshot…", &window, [&window] {
        bool ok = false;
        const QString name = QInputDialog::getText(&window, "Save snapshot",
                                                   "Snapshot name:", QLineEdit::Normal, {}, &ok)
                                 .trimmed();
        if (ok && !name.isEmpty()) window.saveSnapshot(name);
    });
    QMenu* restore = edit->addMenu("Restore snapshot");
    QObject::connect(restore, &QMenu::aboutToShow, &window, [&window, restore] {
        restore->clear();
        for (const QString& name : window.snapshotNames())
            restore->addAction(name, &window, [&window, name] { window.restoreSnapshot(name); });
    });
    edit->addSeparator();
    // At the tick the session is at unless told otherwise: a fork is most often "from here".
    QAction* fork = edit->addAction("Fork at tick…", &window, [&window] {
        const FramePtr frame = window.controller().lastFrame();
        const int now = frame ? int(std::min<int64_t>(frame->tick, INT32_MAX)) : 0;
        bool ok = false;
        const int tick =
            QInputDialog::getInt(&window, "Fork at tick",
                                 "Tick of the current sequence to fork at:", now, 0, now, 1, &ok);
        if (ok) window.forkAt(tick);
    });
    auto update = [&window, undo, redo, snapshot, restore, fork] {
        undo->setEnabled(window.canUndo());
        redo->setEnabled(window.canRedo());
        snapshot->setEnabled(window.canKeepHistory());
        fork->setEnabled(window.canKeepHistory());
        restore->setEnabled(window.canKeepHistory() && !window.snapshotNames().isEmpty());
    };
    QObject::connect(&window, &MainWindow::historyChanged, &window, update);
    update();
}

// How the cache stores K (or V) rows (ARCHITECTURE §13): one checkable entry per type, the
// current one checked from the last Frame when the menu opens; a choice re-encodes the live
// cache (command::SetKvTypes, posted to the controller) and keeps the other half's type.
void add_kv_type_menu(MainWindow& window, QMenu* parent, const QString& title, bool is_k) {
    QMenu* menu = parent->addMenu(title);
    auto* group = new QActionGroup(menu);
    for (const auto& [type, name] : kKvTypeNames) {
        QAction* a = menu->addAction(name);
        a->setCheckable(true);
        a->setData(int(type));
        a->setObjectName(QString(is_k ? "k-type-" : "v-type-") + name);
        group->addAction(a);
        QObject::connect(a, &QAction::triggered, &window, [&window, type, is_k] {
            const FramePtr f = window.controller().lastFrame();
            if (!f) return;
            const KvType k = is_k ? type : parse_kv_type(f->k_type).value_or(KvType::F32);
            const KvType v = is_k ? parse_kv_type(f->v_type).value_or(KvType::F32) : type;
            window.controller().postCommand(command::SetKvTypes{k, v});
        });
    }
    QObject::connect(menu, &QMenu::aboutToShow, menu, [&window, menu, is_k] {
        const FramePtr f = window.controller().lastFrame();
        for (QAction* a : menu->actions()) {
            a->setEnabled(bool(f));
            a->setChecked(f && kv_type_name(KvType(a->data().toInt())) ==
                                   (is_k ? f->k_type : f->v_type));
        }
    });
}

// Session ▸ Backend (ARCHITECTURE §18): one checkable entry per backend name, those this machine
// cannot run disabled with the reason as their tooltip; the one the session runs on is checked
// from the last Frame when the menu opens. A choice moves the live session there
// (command::SetBackend, posted to the controller) and keeps its cached rows, so that Drift then
// shows the difference between the two backends and Rebuild recomputes the rows on the new one.
void add_backend_menu(MainWindow& window, QMenu* parent) {
    QMenu* menu = parent->addMenu("Backend");
    menu->setToolTipsVisible(true);
    auto* group = new QActionGroup(menu);
    for (const std::string& name : backend_names()) {
        QAction* a = menu->addAction(QString::fromStdString(name));
        a->setCheckable(true);
        a->setObjectName("backend-" + QString::fromStdString(name));
        std::string why;
        const bool available = backend_available(name, why);
        a->setData(available);
        a->setToolTip(available ? "Run the session on " + QString::fromStdString(name) +
                                      " from now on; its cached rows stay until Rebuild"
                                : QString::fromStdString(why));
        group->addAction(a);
        QObject::connect(a, &QAction::triggered, &window, [&window, name] {
            if (window.controller().lastFrame())
                window.controller().postCommand(command::SetBackend{name});
        });
    }
    QObject::connect(menu, &QMenu::aboutToShow, menu, [&window, menu] {
        const FramePtr f = window.controller().lastFrame();
        for (QAction* a : menu->actions()) {
            a->setEnabled(f && a->data().toBool());
            a->setChecked(f && a->text().toStdString() == f->backend);
        }
    });
}

// A settings dialog on the window: window-modal but not blocking, so that the session's answer
// and its Frames reach the window while it is open; deleted when it closes.
void open_settings_dialog(SettingsDialog* dialog) {
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

// Where the session's answer to a dialog's values goes: back to the dialog, while it is open.
OutcomeHandler answer_to(SettingsDialog* dialog) {
    return [dialog = QPointer<SettingsDialog>(dialog)](const CommandOutcome& outcome) {
        if (dialog) dialog->showOutcome(outcome);
    };
}

// Session ▸ Policy budget…: the `.kvs` budget command, starting at what the last Frame says the
// session runs.
void add_budget_dialog(MainWindow& window, QMenu* session) {
    QAction* budget = session->addAction("Policy budget…", &window, [&window] {
        const FramePtr f = window.controller().lastFrame();
        auto* dialog =
            new BudgetDialog(f ? f->policy : PolicyOptions{},
                             f ? QString::fromStdString(f->proposer) : "no policy yet", &window);
        QObject::connect(dialog, &BudgetDialog::budgetChosen, &window,
                         [&window, dialog](const PolicyBudget& b, quint64 seed) {
                             window.setBudget(b, seed, answer_to(dialog));
                         });
        open_settings_dialog(dialog);
    });
    budget->setObjectName("budgetSettings");
    budget->setToolTip(
        "S sinks, B high-value rows and W window rows per layer of a selective "
        "policy, and the random policy's seed");
}

// Session ▸ Cache layout…: the `.kvs` layout command, the same way.
void add_layout_dialog(MainWindow& window, QMenu* session) {
    QAction* layout = session->addAction("Cache layout…", &window, [&window] {
        const FramePtr f = window.controller().lastFrame();
        auto* dialog = new CacheLayoutDialog(f ? f->layout : CacheLayout::Contiguous,
                                             f ? f->ring_options : RingOptions{},
                                             f ? f->capacity : 1, &window);
        QObject::connect(dialog, &CacheLayoutDialog::layoutChosen, &window,
                         [&window, dialog](CacheLayout l, const RingOptions& ring, qint64 rows) {
                             window.setCacheLayout(l, ring, rows, answer_to(dialog));
                         });
        open_settings_dialog(dialog);
    });
    layout->setObjectName("layoutSettings");
    layout->setToolTip(
        "Where the cache rows live, and a ring's mode, sinks, tokens per frame and size");
}

// Session ▸ A/B against (ARCHITECTURE §12): A is the session's own policy, replayed from the
// prompt; each entry runs B = that policy on the same tokens, with the session's budgets
// (`ab POLICY S B W` in a script names others). One exclusive group: the B running now, or
// "A/B off", is checked from the last Frame when the menu opens, so that a script's `ab` or a
// refused start shows as it is.
void add_ab_menu(MainWindow& window, QMenu* parent) {
    QMenu* menu = parent->addMenu("A/B against");
    menu->setToolTipsVisible(true);
    auto* group = new QActionGroup(menu);
    for (const PolicyInfo& p : policy_table()) {
        if (!p.selective) continue;
        const QString name = QString::fromUtf8(p.name.data(), qsizetype(p.name.size()));
        QAction* a = menu->addAction(name, &window, [&window, name] {
            const FramePtr f = window.controller().lastFrame();
            window.controller().startAb(name, f ? f->policy : PolicyOptions{});
            window.showView("ab");
        });
        a->setObjectName("ab-" + name);
        a->setToolTip("B = " + name +
                      " on the session's tokens, against A = the session's policy replayed from "
                      "the prompt");
        a->setCheckable(true);
        group->addAction(a);
    }
    menu->addSeparator();
    QAction* off = menu->addAction("A/B off", &window, [&window] { window.controller().stopAb(); });
    off->setObjectName("ab-off");
    off->setCheckable(true);
    group->addAction(off);
    QObject::connect(menu, &QMenu::aboutToShow, menu, [&window, group, off] {
        const FramePtr f = window.controller().lastFrame();
        const QString running =
            f && f->ab ? "ab-" + QString::fromStdString(f->ab->b.name) : off->objectName();
        for (QAction* a : group->actions()) a->setChecked(a->objectName() == running);
    });
}

}  // namespace

void add_main_menus(MainWindow& window) {
    QMenuBar* bar = window.menuBar();
    QList<QAction*> keyed;

    QMenu* file = bar->addMenu("&File");
    keyed << file->addAction("Open GGUF model…", QKeySequence::Open, &window, [&window] {
        const QString path =
            QFileDialog::getOpenFileName(&window, "Open a GGUF model", {}, "GGUF models (*.gguf)");
        if (!path.isEmpty()) window.openModel(path);
    });
    file->addAction("Open Hugging Face folder…", &window, [&window] {
        const QString dir = QFileDialog::getExistingDirectory(
            &window,
            "Open a Hugging Face model folder (config.json, *.safetensors, tokenizer.json)");
        if (!dir.isEmpty()) window.openModel(dir);
    });
    file->addAction("Open trace…", &window, [&window] {
        const QString path = QFileDialog::getOpenFileName(
            &window, "Open a recorded session (replayed to its last tick)", {},
            "Traces (*.ndjson *.jsonl);;All files (*)");
        if (!path.isEmpty()) window.openTrace(path);
    });
    file->addAction("Open sweep results…", &window, [&window] {
        const QString dir = QFileDialog::getExistingDirectory(
            &window, "Open a sweep's folder (kvw sweep --plan DIR: plan.json, shards, sweep.csv)");
        if (!dir.isEmpty()) window.openSweep(dir);
    });
    file->addAction("Save trace…", &window, [&window] {
        const QString path = QFileDialog::getSaveFileName(
            &window,
            "Save the session's trace (kvw replay and Open trace read it); it is kept up to date "
            "as the session goes on",
            "session.ndjson", "Traces (*.ndjson)");
        if (!path.isEmpty()) window.controller().autosaveTrace(path);
    });
    file->addSeparator();
    keyed << file->addAction("Save screenshot…", QKeySequence("Ctrl+Shift+S"), &window, [&window] {
        const QString path = QFileDialog::getSaveFileName(&window, "Save a screenshot",
                                                          "kv-workbench.png", "PNG (*.png)");
        if (!path.isEmpty()) window.grabShot({}).save(path);
    });
    QMenu* export_view_menu = file->addMenu("Export view");
    for (FrameView* view : window.docks().views()) {
        const QString title = window.docks().dock(view->viewName())->windowTitle();
        export_view_menu->addAction(title + "…", &window, [&window, view, title] {
            const QString path =
                QFileDialog::getSaveFileName(&window, "Export " + title, view->viewName() + ".csv",
                                             "CSV (*.csv);;JSON (*.json);;PNG (*.png)");
            if (path.isEmpty()) return;
            const FramePtr frame = window.controller().lastFrame();
            const QString problem = export_view(*view, path, frame ? frame->tick : 0);
            window.report(problem.isEmpty() ? "exported " + path : "export: " + problem,
                          !problem.isEmpty());
        });
    }
    file->addAction("Export session bundle…", &window, [&window] {
        const QString dir = QFileDialog::getExistingDirectory(
            &window, "Export the session: window, every view's data and picture, the trace");
        if (dir.isEmpty()) return;
        export_session_bundle(window, window.controller(), dir);  // says how it went
    });
    file->addSeparator();
    keyed << file->addAction("Quit", QKeySequence::Quit, &window, &MainWindow::quit);

    add_edit_menu(window, bar, keyed);

    QMenu* view = bar->addMenu("&View");
    for (const QString& name : window.docks().names())
        view->addAction(window.docks().dock(name)->toggleViewAction());
    view->addSeparator();
    view->addAction("Reset layout", &window, &MainWindow::resetLayout);
    keyed << view->addAction("Next layer", QKeySequence("]"), &window,
                             [&window] { window.stepLayer(+1); });
    keyed << view->addAction("Previous layer", QKeySequence("["), &window,
                             [&window] { window.stepLayer(-1); });
    keyed << view->addAction("Previous tick", QKeySequence("Alt+Left"), &window,
                             [&window] { window.stepShownTick(-1); });
    keyed << view->addAction("Next tick", QKeySequence("Alt+Right"), &window,
                             [&window] { window.stepShownTick(+1); });

    // Plain letters: a line edit with the focus takes them as text first, as it should.
    QMenu* session = bar->addMenu("&Session");
    const QList<QAction*> session_actions = {
        toolbar_action(window, "start", QKeySequence("Ctrl+Return")),
        toolbar_action(window, "step", QKeySequence("N")),
        toolbar_action(window, "run", QKeySequence("R")),
        toolbar_action(window, "rebuild", QKeySequence("B")),
        toolbar_action(window, "drift", QKeySequence("D")),
    };
    session->addActions(session_actions);
    keyed << session_actions;
    session->addSeparator();
    add_kv_type_menu(window, session, "K storage", true);
    add_kv_type_menu(window, session, "V storage", false);
    add_layout_dialog(window, session);
    add_backend_menu(window, session);
    session->addSeparator();
    add_budget_dialog(window, session);
    session->addAction("SmartKV gate…", &window, [&window] {
        const QString file = QFileDialog::getOpenFileName(
            &window, "Choose a SmartKV gate", {}, "Gate sidecars (*.gate.gguf);;GGUF (*.gguf)");
        if (!file.isEmpty()) window.controller().setGate(file);
    });
    add_ab_menu(window, session);
    QAction* wlod = session->addAction("wLOD tree…", &window, [&window] {
        const FramePtr frame = window.controller().lastFrame();
        WlodDialog dialog(frame ? frame->wlod_k : 0, frame ? frame->wlod_max : 0, &window);
        if (dialog.exec() == QDialog::Accepted) window.setWlod(dialog.k(), dialog.wMax());
    });
    wlod->setObjectName("wlodSettings");
    wlod->setToolTip(
        "Turn the wLOD working-context tree on with K and W_max, change them, or "
        "turn it off");

    QMenu* help = bar->addMenu("&Help");
    help->addAction("Keyboard shortcuts", &window, [&window, keyed] {
        QMessageBox::information(&window, "Keyboard shortcuts", shortcut_table(keyed));
    });
    help->addAction("Script language", &window, [&window] {
        ReferenceDialog dialog("Script language",
                               "kv-workbench --script FILE.kvs runs a script headless, one "
                               "command per line (README.md has the details):",
                               QString::fromStdString(script_help_text("")), &window);
        dialog.exec();
    });
    help->addAction("About KV Workbench", &window, [&window] {
        QMessageBox::about(&window, "About KV Workbench",
                           "KV Workbench: step a Llama-family model tick by tick and inspect, "
                           "edit and check its KV cache.");
    });
}

}  // namespace kvw
