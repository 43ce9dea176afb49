#pragma once
#include <QToolBar>

#include "widgets/frame_view.h"

class QAction;
class QLabel;
class QSlider;
class QSpinBox;

namespace kvw {

// The tick slider under the docks (ARCHITECTURE §16), as a capture's event scrubber: pick any
// tick of the current sequence and every view shows that tick's Frame; a banner says whether the
// window shows the live session or a past tick, and "Back to live" returns. It only emits what
// was picked; MainWindow asks the SessionController for the Frame.
class HistoryBar : public QToolBar {
    Q_OBJECT
public:
    explicit HistoryBar(QWidget* parent = nullptr);

    // The live session's Frame: the slider reaches its tick.
    void setLiveFrame(const FramePtr& live);
    // The tick the views show; -1: the live session.
    void setShownTick(qint64 tick);
    qint64 shownTick() const { return shown_; }
    // The banner's words, for the status bar and tests.
    QString bannerText() const;

signals:
    void tickChosen(qint64 tick);
    void liveRequested();

private:
    void refresh();

    QSlider* slider_;
    QSpinBox* tick_;
    QLabel* banner_;
    QAction* live_;
    qint64 live_tick_ = 0;
    qint64 shown_ = -1;
};

}  // namespace kvw
