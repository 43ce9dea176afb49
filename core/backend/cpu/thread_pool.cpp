#include "core/backend/cpu/thread_pool.h"

#include <algorithm>

namespace kvw {

namespace {

thread_local bool in_pool_chunk = false;

// Workers and the caller spin this many rounds before sleeping on a futex: a decode step issues
// a few hundred short calls, and waking a sleeping thread costs more than most of them take.
constexpr int kSpinRounds = 2000;

template <class T, class Pred>
void spin_then_wait(const std::atomic<T>& a, Pred done) {
    for (int i = 0; i < kSpinRounds; ++i) {
        if (done(a.load(std::memory_order_acquire))) return;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    for (T v = a.load(std::memory_order_acquire); !done(v); v = a.load(std::memory_order_acquire))
        a.wait(v, std::memory_order_acquire);
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
    if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
    workers_.reserve(size_t(threads - 1));
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
    stop_.store(true, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    generation_.notify_all();
    for (std::thread& t : workers_) t.join();
}

void ThreadPool::run_chunk(int index) {
    const int64_t begin = n_ * index / chunks_;
    const int64_t end = n_ * (index + 1) / chunks_;
    if (begin < end) {
        in_pool_chunk = true;
        try {
            (*fn_)(begin, end);
        } catch (...) {
            std::lock_guard lock(error_mutex_);
            if (!error_) error_ = std::current_exception();
        }
        in_pool_chunk = false;
    }
}

void ThreadPool::worker_loop(int index) {
    uint64_t seen = 0;
    for (;;) {
        spin_then_wait(generation_, [seen](uint64_t g) { return g != seen; });
        seen = generation_.load(std::memory_order_acquire);
        if (stop_.load(std::memory_order_acquire)) return;
        if (index < chunks_) run_chunk(index);
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_all();
    }
}

void ThreadPool::parallel_for(int64_t n, const RangeFn& fn) {
    if (n <= 0) return;
    if (workers_.empty() || in_pool_chunk || n == 1) {
        fn(0, n);
        return;
    }
    std::lock_guard call_lock(call_mutex_);
    fn_ = &fn;
    n_ = n;
    chunks_ = int(std::min<int64_t>(n, size()));
    error_ = nullptr;
    // Every worker acknowledges every call (including those with no chunk), so pending_ counts
    // all of them; a worker never sees a half-written call.
    pending_.store(int(workers_.size()), std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    generation_.notify_all();
    run_chunk(0);
    spin_then_wait(pending_, [](int p) { return p == 0; });
    fn_ = nullptr;
    if (error_) std::rethrow_exception(error_);
}

void ThreadPool::parallel_claims(int64_t n, int64_t grain, const RangeFn& fn) {
    if (n <= 0) return;
    grain = std::max<int64_t>(1, grain);
    std::atomic<int64_t> next{0};
    parallel_for(std::min<int64_t>(size(), (n + grain - 1) / grain), [&](int64_t, int64_t) {
        for (int64_t b; (b = next.fetch_add(grain, std::memory_order_relaxed)) < n;)
            fn(b, std::min(n, b + grain));
    });
}

}  // namespace kvw
