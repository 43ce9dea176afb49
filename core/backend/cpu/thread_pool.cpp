#include "core/backend/cpu/thread_pool.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

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

// A share of parallel_walks' units, [front, back), in one word so that its walker (taking the
// front) and the others (taking the back) agree on every unit.
class WalkShare {
public:
    void set(int64_t front, int64_t back) {
        word_.store(uint64_t(front) | uint64_t(back) << 32, std::memory_order_relaxed);
    }
    // The unit taken, or -1 when the share is done.
    int64_t take_front() { return take(true); }
    int64_t take_back() { return take(false); }

private:
    int64_t take(bool front_end) {
        uint64_t w = word_.load(std::memory_order_acquire);
        for (;;) {
            const int64_t front = int64_t(w & 0xffffffffu), back = int64_t(w >> 32);
            if (front >= back) return -1;
            const uint64_t taken = front_end ? w + 1 : w - (uint64_t(1) << 32);
            if (word_.compare_exchange_weak(w, taken, std::memory_order_acq_rel))
                return front_end ? front : back - 1;
        }
    }
    std::atomic<uint64_t> word_{0};
};

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

void ThreadPool::parallel_walks(int64_t n, const WalkFn& fn) {
    if (n <= 0) return;
    if (n > std::numeric_limits<int32_t>::max())
        throw std::invalid_argument("ThreadPool::parallel_walks: " + std::to_string(n) +
                                    " units, at most 2^31 - 1");
    const int shares = int(std::min<int64_t>(n, size()));
    const std::unique_ptr<WalkShare[]> share(new WalkShare[size_t(shares)]);
    for (int i = 0; i < shares; ++i) share[i].set(n * i / shares, n * (i + 1) / shares);
    // Run inline (nested, one thread) the call covers every share itself, in order.
    parallel_for(shares, [&](int64_t first, int64_t last) {
        int64_t own = first;
        const auto take = [&]() -> int64_t {
            for (; own < last; ++own)
                if (const int64_t unit = share[own].take_front(); unit >= 0) return unit;
            for (int k = 1; k < shares; ++k)
                if (const int64_t unit = share[(first + k) % shares].take_back(); unit >= 0)
                    return unit;
            return -1;
        };
        for (int64_t unit = take(); unit >= 0;) {
            const int64_t next = take();
            fn(int(first), unit, next);
            unit = next;
        }
    });
}

}  // namespace kvw
