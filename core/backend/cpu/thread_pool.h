#pragma once
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kvw {

// A small persistent pool. parallel_for splits [0, n) statically into one contiguous chunk per
// thread (chunk i = [n·i/T, n·(i+1)/T)), so which thread computes which index never depends on
// timing; parallel_claims hands out ranges to whichever thread is free, for work whose results
// do not depend on that (parallel_walks keeps each thread on consecutive indices as long as it
// can). The calling thread takes part and the call returns when every index is done. Calls from
// inside a chunk (nested) run serially on the calling thread.
class ThreadPool {
public:
    using RangeFn = std::function<void(int64_t begin, int64_t end)>;

    // threads == 0: one per hardware thread. threads == 1: no worker threads at all.
    explicit ThreadPool(int threads = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return int(workers_.size()) + 1; }

    // Rethrows the first exception a chunk threw, after every chunk has finished.
    void parallel_for(int64_t n, const RangeFn& fn);

    // fn(begin, end) over [0, n) in ranges of `grain` indices (the last shorter), each taken
    // from a shared counter by whichever thread is free, so a thread slowed down (another
    // process on its core, a slower memory channel) leaves its share to the others instead of
    // making them wait. Which thread runs a range depends on timing: only for work whose results
    // depend on neither. Exceptions as parallel_for (a thread that threw takes no more ranges;
    // the others finish them).
    void parallel_claims(int64_t n, int64_t grain, const RangeFn& fn);

    // fn(walker, unit, next) for every unit of [0, n) (n < 2^31), once: each walker (one per
    // thread, walker < size()) walks its share of parallel_for's split forward, then takes units
    // one at a time from the back of the shares not yet done, so a thread slowed down leaves the
    // end of its share to the others while each still reads mostly consecutive units. A walker
    // takes its next unit before it runs the current one and passes it as `next` (-1: none), so
    // the work can ask for what the next unit reads; no two walkers run at once under the same
    // index, so state kept per walker needs no lock. Which walker runs a unit depends on timing:
    // only for work whose results depend on neither. An exception ends its walker (the unit it
    // had taken next is not run) and is rethrown as parallel_for's.
    using WalkFn = std::function<void(int walker, int64_t unit, int64_t next)>;
    void parallel_walks(int64_t n, const WalkFn& fn);

private:
    void worker_loop(int index);
    void run_chunk(int index);

    std::vector<std::thread> workers_;
    std::mutex call_mutex_;  // one parallel_for at a time from different caller threads
    const RangeFn* fn_ = nullptr;
    int64_t n_ = 0;
    int chunks_ = 0;
    std::atomic<uint64_t> generation_{0};  // bumped per call; workers wait on it
    std::atomic<int> pending_{0};          // chunks still running
    std::atomic<bool> stop_{false};
    std::mutex error_mutex_;
    std::exception_ptr error_;
};

}  // namespace kvw
