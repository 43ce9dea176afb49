#pragma once
#include <spdlog/common.h>

#include <deque>
#include <memory>

#include "core/session/log_channel.h"
#include "widgets/frame_view.h"

class QComboBox;
class QPlainTextEdit;

namespace kvw {

class QueuedLogSink;

// What the default spdlog logger says, from any thread, with a level filter. The view keeps the
// last lines it received so that lowering the filter shows the quieter ones again. One window's
// view shows its own session's lines (setChannel) and those of no session in particular, never
// another window's nor a hidden session's (core/session/log_channel.h).
class LogView : public FrameView {
    Q_OBJECT
public:
    explicit LogView(QWidget* parent = nullptr);
    ~LogView() override;
    QString viewName() const override { return "log"; }
    ViewTable table() const override;

    // Shows lines at `level` or above (the logger's own level still decides what is logged).
    void setLevelFilter(spdlog::level::level_enum level);
    // From now on keeps only lines logged on `channel` or on kAnyLogChannel. Until then (a view
    // of no window in particular), every line but the hidden sessions'.
    void setChannel(LogChannel channel) { channel_ = channel; }
    LogChannel channel() const { return channel_; }
    spdlog::level::level_enum levelFilter() const { return filter_; }

    static constexpr int kMaxLines = 5000;

public slots:
    // The log comes from spdlog, not from frames.
    void setFrame(kvw::FramePtr) override {}
    // The log runs across ticks: a past tick shown by the window leaves it as it is.
    bool showsHistory() const override { return true; }

private:
    struct Line {
        spdlog::level::level_enum level;
        QString text;
    };
    void receive(spdlog::level::level_enum level, LogChannel channel, const QString& text);
    // Appends the line to the text when it passes the level filter (not QWidget::show).
    void showLine(const Line& line);
    void refill();

    std::deque<Line> lines_;
    spdlog::level::level_enum filter_ = spdlog::level::info;
    LogChannel channel_ = kAnyLogChannel;
    bool follows_end_ = true;  // the newest line is in view: keep it there
    QComboBox* level_;
    QPlainTextEdit* text_;
    std::shared_ptr<QueuedLogSink> sink_;
};

}  // namespace kvw
