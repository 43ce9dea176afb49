#include "app/gui/main_window.h"

#include <algorithm>

#include <spdlog/spdlog.h>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QMenuBar>
#include <QResizeEvent>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>

#include "app/gui/history_bar.h"
#include "app/gui/main_menus.h"
#include "app/gui/main_toolbar.h"
#include "app/gui/screen_fit.h"
#include "app/gui/session_controller.h"
#include "app/gui/settle_events.h"
#include "app/gui/status_line.h"
#include "app/gui/unsaved_sessions.h"
#include "app/gui/view_docks.h"
#include "core/backend/backend_registry.h"
#include "widgets/log_view.h"
#include "widgets/sweep_results_view.h"
#include "widgets/timeline_view.h"

namespace kvw {

namespace {

QSettings settings() { return QSettings("KV Workbench", "kv-workbench"); }

}  // namespace

MainWindow::MainWindow(SessionController& controller, WindowOptions options, QWidget* parent)
    : QMainWindow(parent),
      controller_(controller),
      options_(options),
      toolbar_(new MainToolBar(this)),
      docks_(nullptr),
      status_(new StatusLine(statusBar())),
      history_bar_(new HistoryBar(this)) {
    setWindowTitle("KV Workbench[*]");               // [*]: the session has changes not saved
    setDockOptions(dockOptions() & ~AnimatedDocks);  // a shot must not catch a dock mid-move
    addToolBar(Qt::TopToolBarArea, toolbar_);
    addToolBar(Qt::TopToolBarArea, toolbar_->policyBar());
    addToolBar(Qt::BottomToolBarArea, history_bar_);
    docks_ = new ViewDocks(this);
    // This window's log shows its own session's lines, not a fork window's nor A/B's sides'.
    if (auto* log = qobject_cast<LogView*>(docks_->view("log")))
        log->setChannel(controller_.logChannel());
    add_main_menus(*this);

    connectToolBar();
    connectViews();
    connect(&controller_, &SessionController::frameReady, this, &MainWindow::showFrame);
    connect(&controller_, &SessionController::pastFrameReady, this, &MainWindow::showPastFrame);
    // An opened trace's ticks, each a point of the timeline (and so a click away, §16).
    connect(&controller_, &SessionController::historyReplayed, this,
            [this](const TimelineHistoryPtr& history) {
                if (auto* timeline = qobject_cast<TimelineView*>(docks_->view("timeline")))
                    timeline->setHistory(history);
            });
    connect(history_bar_, &HistoryBar::tickChosen, this, &MainWindow::showTick);
    connect(history_bar_, &HistoryBar::liveRequested, this, &MainWindow::backToLive);
    connect(&controller_, &SessionController::busyChanged, status_, &StatusLine::setBusy);
    connect(&controller_, &SessionController::becameIdle, this, [this] {
        // A past tick asked for and never delivered: its replay failed (the error says why).
        if (requested_tick_ >= 0) {
            requested_tick_ = -1;
            history_bar_->setShownTick(past_ ? past_->tick : -1);
        }
        run_active_ = false;
        toolbar_->setRunning(false);
        toolbar_->setLoading(false);
        emit historyChanged();
    });
    connect(&controller_, &SessionController::progressChanged, status_, &StatusLine::setProgress);
    connect(&controller_, &SessionController::errorOccurred, status_, &StatusLine::showError);
    connect(&controller_, &SessionController::noticeOccurred, status_, &StatusLine::showNotice);
    connect(status_, &StatusLine::cancelRequested, &controller_, &SessionController::cancel);
    connect(&controller_, &SessionController::unsavedChanged, this, &QWidget::setWindowModified);

    if (options_.script_mode) {
        setFixedSize(options_.size);
    } else if (options_.fork) {
        resize(options_.size);
    } else {
        resize(options_.size);
        restoreGeometry(settings().value("geometry").toByteArray());
        fitOnScreen();
        layout_pending_ = !restoreState(settings().value("state").toByteArray());
    }
}

void MainWindow::collectSessions(QList<OpenSession>& sessions) {
    pauseRun("close the window");
    sessions << OpenSession{options_.fork ? "the fork" : "the session", &controller_};
    if (fork_window_) fork_window_->collectSessions(sessions);
}

void MainWindow::confirmClose() {
    close_confirmed_ = true;
    if (fork_window_) fork_window_->confirmClose();
}

// The fork's window goes first: its controller must outlive it.
MainWindow::~MainWindow() { delete fork_window_; }

void MainWindow::connectToolBar() {
    SessionController* c = &controller_;
    connect(toolbar_, &MainToolBar::modelChosen, this, &MainWindow::openModel);
    connect(toolbar_, &MainToolBar::backendChosen, this, [this] {
        if (!spec_.isEmpty()) openModel(spec_);
    });
    // Start, Step and the model controls are disabled while a Run goes (MainToolBar::setRunning);
    // the other commands pause the run first and then act, rather than wait behind it.
    connect(toolbar_, &MainToolBar::promptSubmitted, c, &SessionController::startPrompt);
    connect(toolbar_, &MainToolBar::chatPromptSubmitted, c, &SessionController::startChatPrompt);
    connect(toolbar_, &MainToolBar::stepRequested, c, [c] { c->step(1); });
    connect(toolbar_, &MainToolBar::runRequested, this, [this](int ticks) {
        run_active_ = true;
        toolbar_->setRunning(true);
        emit historyChanged();
        controller_.step(ticks);
    });
    connect(toolbar_, &MainToolBar::pauseRequested, this, [this] { pauseRun({}); });
    connect(toolbar_, &MainToolBar::rebuildRequested, c, [this, c] {
        pauseRun("rebuild");
        c->postCommand(command::Rebuild{});
    });
    connect(toolbar_, &MainToolBar::driftRequested, c, [this, c] {
        pauseRun("measure drift");
        c->postCommand(command::Drift{});
    });
    connect(toolbar_, &MainToolBar::proposerChosen, c, [this, c](const QString& name) {
        pauseRun("change the policy");
        c->postCommand(command::SetProposer{name.toStdString()});
    });
    connect(toolbar_, &MainToolBar::ropePolicyChosen, c, [this, c](RopePolicy policy) {
        pauseRun("change the RoPE policy");
        c->postCommand(command::SetRopePolicy{policy});
    });
    connect(toolbar_, &MainToolBar::guardToggled, c, [this, c](bool on) {
        pauseRun("switch the guard");
        c->postCommand(command::SetGuard{on});
    });
    connect(toolbar_, &MainToolBar::layerChosen, this, &MainWindow::selectLayer);
    connect(toolbar_, &MainToolBar::screenshotRequested, this, [this] {
        const QString file = QFileDialog::getSaveFileName(this, "Save a screenshot",
                                                          "kv-workbench.png", "PNG (*.png)");
        if (!file.isEmpty()) grabShot({}).save(file);
    });
}

void MainWindow::connectViews() {
    SessionController* c = &controller_;
    for (FrameView* view : docks_->views()) {
        connect(view, &FrameView::rowSelected, this,
                [this](int layer, int row) { select(layer, row); });
        connect(view, &FrameView::rowsSelected, this, &MainWindow::select);
        connect(view, &FrameView::layerSelected, this, &MainWindow::selectLayer);
        connect(view, &FrameView::tickChosen, this, &MainWindow::showTick);
        connect(view, &FrameView::actionsRequested, c, [this, c](const ActionList& list, bool now) {
            if (!editsLive(now ? "apply actions" : "queue actions")) return;
            pauseRun(now ? "apply actions" : "queue actions");
            if (now)
                c->postCommand(command::ApplyNow{list});
            else
                c->postCommand(command::Inject{list});
        });
        connect(view, &FrameView::textActionRequested, c,
                [this, c](TextActionKind kind, int layer, int row1, int row2, const QString& text,
                          bool now) {
                    if (!editsLive("edit the text")) return;
                    pauseRun("edit the text");
                    c->textAction(kind, layer, row1, row2, text, now);
                });
    }
}

void MainWindow::openModel(const QString& spec) {
    spec_ = spec;
    toolbar_->setLoading(true);
    // One command: a load that fails never reaches the prompt, so the session stays as it was.
    controller_.loadModel(spec, toolbar_->backend(), toolbar_->prompt());
}

void MainWindow::openTrace(const QString& path, const QString& model, const QString& backend) {
    pauseRun("open trace");
    toolbar_->setLoading(true);
    controller_.openTrace(path, model, backend);
}

SweepResultsView* MainWindow::openSweep(const QString& dir) {
    auto* view = new SweepResultsView(this);
    view->setWindowFlag(Qt::Window);
    view->setAttribute(Qt::WA_DeleteOnClose);
    QString error;
    if (!view->open(dir.toStdString(), error)) {
        delete view;
        status_->showError("cannot open sweep results: " + error);
        return nullptr;
    }
    view->setWindowTitle("Sweep results — " + dir);
    view->resize(1000, 700);
    connect(view, &SweepResultsView::cellActivated, this, [this, view](qint64 cell) {
        pauseRun("open sweep cell");
        toolbar_->setLoading(true);
        controller_.openSweepCell(view->plan(), cell);
    });
    view->show();
    return view;
}

void MainWindow::pauseRun(const QString& why) {
    if (!run_active_) return;
    run_active_ = false;
    toolbar_->setRunning(false);
    emit historyChanged();
    controller_.cancel();  // the run's job logs where it stopped
    const LogChannelScope channel(controller_.logChannel());
    if (!why.isEmpty()) spdlog::info("pausing the run to {}", why.toStdString());
}

void MainWindow::fitOnScreen() {
    // A geometry saved on a larger screen (or a --size beyond this one) would put the status
    // bar and the lower docks out of reach.
    const QRect g =
        client_rect_on_screen(frameGeometry(), frame_margins(*this), screen()->availableGeometry());
    if (g != geometry()) setGeometry(g);
}

void MainWindow::report(const QString& message, bool error) {
    const LogChannelScope channel(controller_.logChannel());  // this window's log alone
    if (error) {
        spdlog::error("{}", message.toStdString());
        status_->showError(message);
    } else {
        spdlog::info("{}", message.toStdString());
        status_->showNotice(message);
    }
}

void MainWindow::quit() {
    if (origin_)
        origin_->quit();
    else
        close();
}

void MainWindow::setWlod(int k, qint64 w_max) {
    pauseRun("change the wLOD settings");
    controller_.postCommand(command::SetWlod{k, w_max});
}

void MainWindow::setBudget(const PolicyBudget& budget, quint64 seed, OutcomeHandler done) {
    pauseRun("change the policy budget");
    controller_.setBudget(budget, seed, std::move(done));
}

void MainWindow::setCacheLayout(CacheLayout layout, const RingOptions& ring, qint64 capacity,
                                OutcomeHandler done) {
    pauseRun("change the cache layout");
    controller_.postCommand(command::SetLayout{layout, ring, capacity}, std::move(done));
}

void MainWindow::setPrompt(const QString& prompt) { toolbar_->setPrompt(prompt); }
void MainWindow::setBackend(const QString& backend) {
    // The toolbar lists the backends themselves: "auto" shows as the one it stands for.
    toolbar_->setBackend(QString::fromStdString(resolve_backend(backend.toStdString())));
}

namespace {

// The row of `layer` that holds record `id`, -1 when none does. Edits move a record by a few
// rows, so the rows around `near` are looked at first.
int row_holding(const LayerFrame& layer, int64_t id, int near) {
    if (id < 0) return -1;
    const int rows = layer.rows();
    near = std::clamp(near, 0, std::max(0, rows - 1));
    for (int d = 0; d < rows; ++d) {
        if (near + d < rows && layer.pos2ledger[size_t(near + d)] == id) return near + d;
        if (d > 0 && near - d >= 0 && layer.pos2ledger[size_t(near - d)] == id) return near - d;
        if (near + d >= rows && near - d < 0) break;
    }
    return -1;
}

}  // namespace

void MainWindow::select(int layer, int row, int count) {
    const FramePtr frame = shownFrame();
    const bool held = frame && layer >= 0 && layer < int(frame->layers.size()) && row >= 0 &&
                      row < frame->layers[size_t(layer)].rows();
    record_ = held ? frame->layers[size_t(layer)].pos2ledger[size_t(row)] : -1;
    showSelection(layer, row, count);
}

void MainWindow::selectLayer(int layer) {
    layer_ = layer;
    followSelection();
}

void MainWindow::followSelection() {
    const FramePtr frame = shownFrame();
    if (!frame) return;
    const int layers = int(frame->layers.size());
    const int layer = std::clamp(layer_, 0, std::max(0, layers - 1));
    const int row = layer < layers ? row_holding(frame->layers[size_t(layer)], record_, row_) : -1;
    showSelection(layer, row, rows_);
}

void MainWindow::showSelection(int layer, int row, int count) {
    // A row the layer does not hold is no selection (layers may differ in length); a span ends
    // at the layer's last row.
    const FramePtr frame = shownFrame();
    if (frame && (layer < 0 || layer >= int(frame->layers.size()) ||
                  row >= frame->layers[size_t(layer)].rows()))
        row = -1;
    count = std::max(count, 1);
    if (frame && row >= 0) count = std::min(count, frame->layers[size_t(layer)].rows() - row);
    if (row < 0) count = 1;
    layer_ = layer;
    row_ = row;
    rows_ = count;
    toolbar_->setLayer(layer);
    docks_->setSelection(layer, row, count);
}

void MainWindow::showFrame(const FramePtr& frame) {
    setWindowTitle(QString(options_.fork ? "KV Workbench fork — " : "KV Workbench — ") +
                   QString::fromStdString(frame->model.source) + "[*]");
    toolbar_->setFrame(frame);
    status_->setFrame(frame);
    history_bar_->setLiveFrame(frame);
    // A past tick this sequence no longer has (an undo went back before it, a new prompt).
    if (past_ && (frame->tick < past_->tick || frame->prompt != past_->prompt)) backToLive();
    docks_->setLiveFrame(frame, past_ != nullptr);
    emit historyChanged();
    if (past_) return;  // the views show the past tick's Frame, and the selection in it
    followSelection();
}

void MainWindow::resetLayout() {
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        dock->setFloating(false);
        dock->show();
    }
    docks_->arrange(this);
}

void MainWindow::stepLayer(int delta) {
    const FramePtr frame = controller_.lastFrame();
    if (!frame || frame->layers.empty()) return;
    selectLayer(std::clamp(layer_ + delta, 0, int(frame->layers.size()) - 1));
}

bool MainWindow::showView(const QString& name) {
    QDockWidget* dock = docks_->dock(name);
    if (!dock) return false;
    dock->show();
    dock->raise();
    return true;
}

QImage MainWindow::grabShot(const QString& view) {
    settle_queued_events();  // the last Frame fully drawn, whoever asks (a script, a bundle)
    if (view.isEmpty()) return grab().toImage();
    if (!showView(view)) return {};
    return docks_->dock(view)->grab().toImage();
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    // The policy toolbar goes to a second row when both rows do not fit side by side.
    const bool wrap = toolbar_->sizeHint().width() + toolbar_->policyBar()->sizeHint().width() >
                      event->size().width();
    if (wrap == toolbars_wrapped_) return;
    toolbars_wrapped_ = wrap;
    if (wrap)
        insertToolBarBreak(toolbar_->policyBar());
    else
        removeToolBarBreak(toolbar_->policyBar());
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (!layout_pending_) return;
    layout_pending_ = false;
    docks_->arrange(this);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (asking_) {  // a second close while the question is up: the question answers it
        event->ignore();
        return;
    }
    // A script's windows close as the script ends: nobody is there to answer.
    if (!close_confirmed_ && !options_.script_mode) {
        QList<OpenSession> sessions;
        collectSessions(sessions);
        asking_ = true;
        const bool may_close = may_close_sessions(
            this, options_.fork ? "Close the fork" : "Quit KV Workbench", sessions);
        asking_ = false;
        if (!may_close) {
            event->ignore();
            return;
        }
    }
    confirmClose();
    if (fork_window_) fork_window_->close();  // and its own fork windows, unasked
    if (!options_.script_mode && !options_.fork) {
        settings().setValue("geometry", saveGeometry());
        settings().setValue("state", saveState());
    }
    event->accept();
}

}  // namespace kvw
