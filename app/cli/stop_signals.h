#pragma once
// SIGINT and SIGTERM as a request to stop: a long command ends its current step, keeps what it
// wrote, and exits non-zero (ARCHITECTURE §9.1).

namespace kvw::cli {

// While one lives, SIGINT and SIGTERM only set a flag (the one thing a handler can do safely);
// the command polls received() between steps. The previous handlers come back when it dies.
class StopSignals {
public:
    StopSignals();
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    int received() const;  // the signal number, 0 for none yet
};

}  // namespace kvw::cli
