#include "core/session/log_channel.h"

#include <atomic>

namespace kvw {

namespace {

thread_local LogChannel current = kAnyLogChannel;

}  // namespace

LogChannel new_log_channel() {
    static std::atomic<LogChannel> next{kAnyLogChannel + 1};
    return next.fetch_add(1);
}

LogChannel current_log_channel() { return current; }

LogChannelScope::LogChannelScope(LogChannel channel) : previous_(current) { current = channel; }

LogChannelScope::~LogChannelScope() { current = previous_; }

}  // namespace kvw
