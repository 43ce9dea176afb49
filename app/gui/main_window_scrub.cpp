// The window's side of past ticks (ARCHITECTURE §16): which Frame the views show. The worker
// replays the trace to the tick in a scratch session; the live session is never touched, so
// Step, Run and the toolbar keep driving it while the views show the past.
#include <spdlog/spdlog.h>
#include <QStatusBar>

#include "app/gui/history_bar.h"
#include "app/gui/main_window.h"

#include <algorithm>
#include "app/gui/session_controller.h"
#include "app/gui/status_line.h"
#include "app/gui/view_docks.h"

namespace kvw {

FramePtr MainWindow::shownFrame() const { return past_ ? past_ : controller_.lastFrame(); }

void MainWindow::showTick(qint64 tick) {
    const FramePtr live = controller_.lastFrame();
    if (!live) return;
    if (tick < 0 || tick >= live->tick) {
        backToLive();
        return;
    }
    if (past_ && past_->tick == tick) return;
    pauseRun("show a past tick");  // else the replay would wait for the whole run
    requested_tick_ = tick;
    controller_.showTick(tick);
}

void MainWindow::stepShownTick(int delta) {
    const FramePtr live = controller_.lastFrame();
    if (!live) return;
    // A tick asked for and still replaying counts as shown, so that held keys walk on.
    const qint64 shown = requested_tick_ >= 0 ? requested_tick_ : past_ ? past_->tick : live->tick;
    showTick(std::max<qint64>(0, shown + delta));
}

void MainWindow::showPastFrame(const FramePtr& frame) {
    // Back to live (or another tick) was asked for while this one was being replayed.
    if (frame->tick != requested_tick_) return;
    requested_tick_ = -1;
    past_ = frame;
    docks_->setPastFrame(past_, controller_.lastFrame());
    history_bar_->setShownTick(past_->tick);
    status_->setShownTick(past_->tick);
    followSelection();  // the record's row then; none where it was not live yet
    const FramePtr live = controller_.lastFrame();
    const LogChannelScope channel(controller_.logChannel());
    spdlog::info("showing tick {} (state hash {}); the live session stays at tick {}", past_->tick,
                 hash_hex(past_->state_hash), live ? live->tick : 0);
}

void MainWindow::backToLive() {
    requested_tick_ = -1;
    const bool was_past = past_ != nullptr;
    past_.reset();
    history_bar_->setShownTick(-1);
    status_->setShownTick(-1);
    if (!was_past) return;
    docks_->setPastFrame(nullptr, controller_.lastFrame());
    followSelection();
    const LogChannelScope channel(controller_.logChannel());
    if (const FramePtr live = controller_.lastFrame())
        spdlog::info("back to live: tick {}", live->tick);
}

bool MainWindow::editsLive(const QString& what) {
    if (!past_) return true;
    const qint64 tick = past_->tick;
    backToLive();
    const QString message = QString(
                                "not done: %1 while the views showed tick %2 (its rows are "
                                "not the live session's); back to live, check the rows and "
                                "ask again")
                                .arg(what)
                                .arg(tick);
    const LogChannelScope channel(controller_.logChannel());
    spdlog::warn("{}", message.toStdString());
    status_->showError(message);
    return false;
}

}  // namespace kvw
