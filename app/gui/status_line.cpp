#include "app/gui/status_line.h"

#include <algorithm>

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QTimer>

#include "widgets/workbench_look.h"

namespace kvw {

namespace {

constexpr int kShowBusyAfterMs = 200;

}  // namespace

QString rows_summary(const Frame& frame) {
    if (frame.layers.empty()) return "no layers";
    const auto [lo, hi] = std::minmax_element(
        frame.layers.begin(), frame.layers.end(),
        [](const LayerFrame& a, const LayerFrame& b) { return a.rows() < b.rows(); });
    if (lo->rows() == hi->rows())
        return QString("rows %1 of %2").arg(lo->rows()).arg(frame.capacity);
    return QString("rows %1–%2 of %3 per layer (layer %4: %1)")
        .arg(lo->rows())
        .arg(hi->rows())
        .arg(frame.capacity)
        .arg(lo - frame.layers.begin());
}

StatusLine::StatusLine(QStatusBar* bar)
    : QObject(bar),
      message_(new QLabel(bar)),
      tick_(new QLabel("no session", bar)),
      rows_(new QLabel(bar)),
      backend_(new QLabel(bar)),
      tick_time_(new QLabel(bar)),
      busy_what_(new QLabel(bar)),
      progress_(new QProgressBar(bar)),
      cancel_(new QPushButton("Cancel", bar)),
      show_delay_(new QTimer(this)) {
    for (QLabel* label : {tick_, rows_, backend_, tick_time_}) bar->addPermanentWidget(label);
    message_->setObjectName("statusMessage");
    backend_->setObjectName("statusModel");
    message_->setTextFormat(Qt::PlainText);  // an error may quote "<" and "&"
    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);  // to copy an error from
    bar->addWidget(message_, 1);
    message_->hide();
    // The bar's height is then what the message needs at the bar's width (heightForWidth): with
    // QStatusBar's fixed vertical policy the main window gives it the label's size hint, a
    // narrower and much taller shape than the one it is laid out in.
    bar->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    progress_->setMaximumWidth(160);
    progress_->setTextVisible(false);
    for (QWidget* w : {static_cast<QWidget*>(busy_what_), static_cast<QWidget*>(progress_),
                       static_cast<QWidget*>(cancel_)}) {
        bar->addWidget(w);
        w->hide();
    }
    connect(cancel_, &QPushButton::clicked, this, &StatusLine::cancelRequested);
    show_delay_->setSingleShot(true);
    show_delay_->setInterval(kShowBusyAfterMs);
    connect(show_delay_, &QTimer::timeout, this, [this] {
        busy_what_->show();
        progress_->show();
        cancel_->show();
    });
}

void StatusLine::setFrame(FramePtr frame) {
    live_tick_ = frame->tick;
    showTick();
    rows_->setText(rows_summary(*frame));
    const QString device =
        frame->device.empty() ? QString() : " (" + QString::fromStdString(frame->device) + ")";
    backend_->setText(QString::fromStdString(frame->backend) + device + " · " +
                      QString::fromStdString(frame->model.source) + " · " +
                      QString::fromStdString(frame->model.architecture));
    tick_time_->setText(wall_clock_hidden()
                            ? QString("last tick — ms (hidden in scripts)")
                            : QString("last tick %1 ms").arg(frame->timings.total_ms, 0, 'f', 1));
}

void StatusLine::setShownTick(qint64 tick) {
    shown_tick_ = tick;
    showTick();
}

void StatusLine::showTick() {
    if (shown_tick_ < 0) {
        tick_->setText(QString("tick %1").arg(live_tick_));
        tick_->setStyleSheet({});
        return;
    }
    tick_->setText(QString("showing tick %1 · live tick %2").arg(shown_tick_).arg(live_tick_));
    tick_->setStyleSheet("QLabel { background: #f6c343; color: black; }");
}

void StatusLine::setBusy(bool busy, const QString& what) {
    if (busy) {
        message_->clear();  // what the last command said is old news now
        message_->hide();
        busy_what_->setText(what + "…");
        setProgress(0, 0);  // unknown until the command reports
        if (!show_delay_->isActive() && !progress_->isVisible()) show_delay_->start();
        return;
    }
    show_delay_->stop();
    busy_what_->hide();
    progress_->hide();
    cancel_->hide();
}

void StatusLine::setProgress(int done, int total) {
    progress_->setRange(0, total);  // 0..0: Qt's busy animation for unknown totals
    progress_->setValue(done);
}

void StatusLine::showError(const QString& message) {
    showMessage("Error: " + message, "QLabel { color: #b00020; }");  // the log's error red
}

void StatusLine::showNotice(const QString& message) { showMessage(message, {}); }

void StatusLine::showMessage(const QString& text, const QString& style) {
    message_->setText(text);
    message_->setStyleSheet(style);
    message_->show();
}

}  // namespace kvw
