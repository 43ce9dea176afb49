#pragma once
#include <time.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace kvw::cli {

// Wall-clock helpers the `kvw bench` commands share.
using BenchClock = std::chrono::steady_clock;

inline double ms_since(BenchClock::time_point start) {
    return std::chrono::duration<double, std::milli>(BenchClock::now() - start).count();
}

// Processor time of the whole process (every thread) in milliseconds: on a machine other jobs
// share, the work a step did, where wall-clock time also counts the waits for a core.
inline double process_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

// The middle value (the upper one of an even count): robust to a stray slow repetition.
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace kvw::cli
