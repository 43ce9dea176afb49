#include "app/gui/history_bar.h"

#include <QAction>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>

namespace kvw {

HistoryBar::HistoryBar(QWidget* parent)
    : QToolBar("History", parent),
      slider_(new QSlider(Qt::Horizontal, this)),
      tick_(new QSpinBox(this)),
      banner_(new QLabel(this)) {
    setObjectName("history_toolbar");
    setMovable(false);
    addWidget(new QLabel("Tick ", this));
    slider_->setObjectName("tickSlider");
    slider_->setToolTip("Drag to a past tick: every view shows the Frame of that tick");
    // A released drag asks for one tick, not for every tick passed on the way (each is a replay).
    slider_->setTracking(false);
    slider_->setPageStep(10);
    slider_->setMinimumWidth(160);
    addWidget(slider_);
    tick_->setObjectName("shownTick");
    tick_->setToolTip("The tick the views show");
    tick_->setKeyboardTracking(false);
    addWidget(tick_);
    live_ = addAction("Back to live", this, &HistoryBar::liveRequested);
    live_->setObjectName("backToLive");
    live_->setToolTip("Show the live session again");
    banner_->setObjectName("scrubBanner");
    banner_->setContentsMargins(6, 0, 6, 0);
    addWidget(banner_);

    connect(slider_, &QSlider::valueChanged, this, [this](int tick) {
        if (tick == live_tick_) {
            emit liveRequested();
        } else {
            emit tickChosen(tick);
        }
    });
    connect(tick_, &QSpinBox::valueChanged, slider_, &QSlider::setValue);
    refresh();
}

void HistoryBar::setLiveFrame(const FramePtr& live) {
    live_tick_ = live->tick;
    // A past tick beyond the live one (an undo went back further) no longer exists here.
    if (shown_ > live_tick_) shown_ = -1;
    refresh();
}

void HistoryBar::setShownTick(qint64 tick) {
    shown_ = tick;
    refresh();
}

QString HistoryBar::bannerText() const {
    if (shown_ < 0) return QString("Live · tick %1").arg(live_tick_);
    return QString("Showing past tick %1 of %2 · Step and Run act on the live session")
        .arg(shown_)
        .arg(live_tick_);
}

void HistoryBar::refresh() {
    const QSignalBlocker quiet_slider(slider_);
    const QSignalBlocker quiet_tick(tick_);
    slider_->setRange(0, int(live_tick_));
    tick_->setRange(0, int(live_tick_));
    const int at = int(shown_ < 0 ? live_tick_ : shown_);
    slider_->setValue(at);
    tick_->setValue(at);
    live_->setEnabled(shown_ >= 0);
    banner_->setText(bannerText());
    // Amber while the views show the past, so that nobody takes it for the live state.
    banner_->setStyleSheet(shown_ < 0 ? QString()
                                      : QString("QLabel { background: #f6c343; color: black; "
                                                "font-weight: bold; }"));
}

}  // namespace kvw
