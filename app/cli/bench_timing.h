#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

namespace kvw::cli {

// Wall-clock helpers the `kvw bench` commands share.
using BenchClock = std::chrono::steady_clock;

inline double ms_since(BenchClock::time_point start) {
    return std::chrono::duration<double, std::milli>(BenchClock::now() - start).count();
}

// The middle value (the upper one of an even count): robust to a stray slow repetition.
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace kvw::cli
