#pragma once
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/dist_sink.h>

#include <QObject>
#include <QString>
#include <functional>
#include <memory>

#include "core/session/log_channel.h"

namespace kvw {

// The one sink of spdlog's default logger through which every LogView listens. A view adds its
// own sink here and removes it when it dies: dist_sink adds, removes and forwards under one
// mutex, so once remove_sink() returns no thread can reach the view's sink any more, which
// spdlog's qt_sink (a raw widget pointer in the logger for good) cannot promise.
// The first call appends the hub to the default logger's sinks; make it on the UI thread before
// any worker thread logs (the logger's sink list itself is not guarded), and after the
// application has installed its default logger, if it replaces spdlog's.
std::shared_ptr<spdlog::sinks::dist_sink_mt> log_hub();

// A sink that hands each formatted message, with the log channel the logging thread was on
// (core/session/log_channel.h), to `receiver` on the thread of `context`, always queued: the
// logging thread (the session's worker, say) never touches a widget, and a receiver that logs
// cannot deadlock on the sink's mutex. Messages queued for a context that is destroyed are
// dropped by Qt with its posted events.
class QueuedLogSink : public spdlog::sinks::base_sink<std::mutex> {
public:
    using Receiver = std::function<void(spdlog::level::level_enum level, LogChannel channel,
                                        const QString& text)>;
    QueuedLogSink(QObject* context, Receiver receiver);

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override;
    void flush_() override {}

private:
    QObject* context_;
    Receiver receiver_;
};

}  // namespace kvw
