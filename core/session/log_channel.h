#pragma once
#include <cstdint>

namespace kvw {

// Which session a log line speaks for (ARCHITECTURE §10, "One log per window"). spdlog has one
// default logger for the whole process; the code that drives a session names that session's
// channel on the driving thread for as long as it works on it (LogChannelScope), and a sink
// that keeps one window's log reads the channel when a line is logged, on the logging thread
// (current_log_channel), so that each window shows its own session's lines only.
using LogChannel = uint64_t;
// No session in particular (start-up, a font that did not load): every window's log shows it.
inline constexpr LogChannel kAnyLogChannel = 0;
// A session nobody looks at (the A/B run's two sides): no window's log shows its lines.
inline constexpr LogChannel kHiddenLogChannel = ~LogChannel(0);

// A channel no earlier call returned (neither of the two above), for one window's session.
LogChannel new_log_channel();
// The channel the calling thread logs on now; kAnyLogChannel outside every scope.
LogChannel current_log_channel();

// Sets the calling thread's channel for its lifetime; the previous one comes back after it.
class LogChannelScope {
public:
    explicit LogChannelScope(LogChannel channel);
    ~LogChannelScope();
    LogChannelScope(const LogChannelScope&) = delete;
    LogChannelScope& operator=(const LogChannelScope&) = delete;

private:
    LogChannel previous_;
};

}  // namespace kvw
