#pragma once
#include <QObject>

#include "widgets/frame_view.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QStatusBar;
class QTimer;

namespace kvw {

// The status bar: tick, rows per layer, backend and last tick time from each Frame; while the
// session is busy, what it does with a progress bar and a Cancel button. The indicator appears
// only after a short delay, so that quick commands do not make it flicker. Notices and errors
// are a label of their own ("statusMessage") that wraps onto more lines, rather than
// QStatusBar's one-line message: that one was cut off under the tick label, and the busy
// indicator, shown after its delay, drew over it.
class StatusLine : public QObject {
    Q_OBJECT
public:
    explicit StatusLine(QStatusBar* bar);

public slots:
    void setFrame(kvw::FramePtr frame);
    // The past tick the views show (ARCHITECTURE §16), -1: the live session. The tick label
    // then names both, on the banner's amber.
    void setShownTick(qint64 tick);
    void setBusy(bool busy, const QString& what);
    void setProgress(int done, int total);
    // Shown until the next command starts: a later success must not leave an old error up.
    void showError(const QString& message);
    void showNotice(const QString& message);

signals:
    void cancelRequested();

private:
    void showTick();
    void showMessage(const QString& text, const QString& style);

    QLabel* message_;
    QLabel* tick_;
    QLabel* rows_;
    QLabel* backend_;
    QLabel* tick_time_;
    QLabel* busy_what_;
    QProgressBar* progress_;
    QPushButton* cancel_;
    QTimer* show_delay_;
    qint64 live_tick_ = 0;
    qint64 shown_tick_ = -1;
};

// "rows 12" when every layer holds as many rows, else "rows 9–12 per layer (layer 2: 9)" for the
// fewest; a plain function so that its text can be tested.
QString rows_summary(const Frame& frame);

}  // namespace kvw
