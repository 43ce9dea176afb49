// The window's side of the session history (ARCHITECTURE §15): undo / redo, named snapshots and
// the fork window and the fork dock. The Session does the work; this only says when it may be
// asked.
#include <spdlog/spdlog.h>

#include <QScreen>

#include "app/gui/main_window.h"
#include "app/gui/screen_fit.h"
#include "app/gui/session_controller.h"
#include "app/gui/view_docks.h"
#include "widgets/fork_view.h"
#include "widgets/timeline_view.h"

namespace kvw {

namespace {

// How far a fork window opens from the window it was forked from: that one's title bar and
// an edge stay in view.
constexpr int kForkCascade = 48;

}  // namespace

bool MainWindow::canKeepHistory() const { return !run_active_ && controller_.lastFrame(); }

bool MainWindow::canUndo() const {
    const FramePtr frame = controller_.lastFrame();
    return !run_active_ && frame && frame->undo_depth > 0;
}

bool MainWindow::canRedo() const {
    const FramePtr frame = controller_.lastFrame();
    return !run_active_ && frame && frame->redo_depth > 0;
}

QStringList MainWindow::snapshotNames() const {
    QStringList names;
    if (const FramePtr frame = controller_.lastFrame())
        for (const std::string& name : frame->snapshots) names << QString::fromStdString(name);
    return names;
}

void MainWindow::undo() {
    if (canUndo()) controller_.undo(1);
}

void MainWindow::redo() {
    if (canRedo()) controller_.redo(1);
}

void MainWindow::saveSnapshot(const QString& name) {
    pauseRun("take a snapshot");
    controller_.snapshot(name);
}

void MainWindow::restoreSnapshot(const QString& name) {
    pauseRun("restore a snapshot");
    controller_.restore(name);
}

void MainWindow::forkAt(qint64 tick) {
    pauseRun("fork");
    if (!fork_controller_) {
        fork_controller_ = std::make_unique<SessionController>();
        // The fork dock compares it with this window's session, row by row (§16).
        if (auto* view = qobject_cast<ForkView*>(docks_->view("fork")))
            connect(fork_controller_.get(), &SessionController::frameReady, view,
                    &ForkView::setForkFrame);
    }
    showView("fork");
    if (!fork_window_) {
        WindowOptions options = options_;
        options.fork = true;
        fork_window_ = new MainWindow(*fork_controller_, options);
        fork_window_->setAttribute(Qt::WA_DeleteOnClose);
        fork_window_->origin_ = this;
        // A cascade step from this window and wholly on its screen: beside it (at its
        // top-right corner) was off the screen whenever this window filled it.
        const QRect available = screen()->availableGeometry();
        fork_window_->setGeometry(client_rect_on_screen(
            cascaded(frameGeometry(), kForkCascade, available), frame_margins(*this), available));
        fork_window_->show();
        fork_window_->fitOnScreen();  // its own minimum size may have grown it past an edge
    }
    inheritTimeline(*fork_window_, tick);
    controller_.forkInto(tick, fork_controller_.get());
}

// The fork's ticks up to `tick` are this session's: its timeline starts with their points (the
// fork's own Frame at `tick` then replaces the last one), as an opened trace's does (§16).
void MainWindow::inheritTimeline(MainWindow& fork, qint64 tick) const {
    const auto* mine = qobject_cast<const TimelineView*>(docks_->view("timeline"));
    auto* theirs = qobject_cast<TimelineView*>(fork.docks_->view("timeline"));
    if (!mine || !theirs) return;
    auto inherited = std::make_shared<TimelineHistory>(mine->history());
    inherited->keep_until(tick);
    theirs->setHistory(std::move(inherited));
}

}  // namespace kvw
