#pragma once
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace kvw {

// Calls fn(begin, end) on disjoint contiguous ranges that cover [0, n), one per hardware
// thread, for the load-time loops that stream over whole weight tensors. Small n (fewer than
// two ranges of min_per_range) runs on the calling thread. fn must not throw.
template <typename Fn>
void for_each_range(size_t n, size_t min_per_range, Fn&& fn) {
    const size_t threads = std::max<size_t>(1, std::thread::hardware_concurrency());
    const size_t ranges = std::min(threads, n / std::max<size_t>(1, min_per_range));
    if (ranges <= 1) {
        fn(size_t(0), n);
        return;
    }
    std::vector<std::jthread> workers;
    workers.reserve(ranges - 1);
    const size_t step = (n + ranges - 1) / ranges;
    for (size_t begin = step; begin < n; begin += step)
        workers.emplace_back([&fn, begin, end = std::min(n, begin + step)] { fn(begin, end); });
    fn(size_t(0), std::min(n, step));
}

}  // namespace kvw
