#include "widgets/log_hub.h"

#include <spdlog/spdlog.h>

#include <QMetaObject>

namespace kvw {

std::shared_ptr<spdlog::sinks::dist_sink_mt> log_hub() {
    static const std::shared_ptr<spdlog::sinks::dist_sink_mt> hub = [] {
        auto sink = std::make_shared<spdlog::sinks::dist_sink_mt>();
        spdlog::default_logger()->sinks().push_back(sink);
        return sink;
    }();
    return hub;
}

QueuedLogSink::QueuedLogSink(QObject* context, Receiver receiver)
    : context_(context), receiver_(std::move(receiver)) {}

void QueuedLogSink::sink_it_(const spdlog::details::log_msg& msg) {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    QString text = QString::fromUtf8(formatted.data(), qsizetype(formatted.size())).trimmed();
    QMetaObject::invokeMethod(
        context_,
        [receiver = receiver_, level = msg.level, channel = current_log_channel(),
         text = std::move(text)] { receiver(level, channel, text); },
        Qt::QueuedConnection);
}

}  // namespace kvw
