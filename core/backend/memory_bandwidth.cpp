#include "core/backend/memory_bandwidth.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "core/backend/thread_pool.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace kvw {

namespace {

constexpr int kPasses = 5;
constexpr size_t kAlign = 64;

// Reads [p, p + bytes) with four independent accumulators so loads, not the dependency chain,
// limit the speed. SSE2 is part of x86-64, so this needs no run-time dispatch; 16-byte loads
// from two cores are far faster than memory.
uint64_t read_buffer(const uint8_t* p, size_t bytes) {
#if defined(__x86_64__)
    __m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
    for (size_t i = 0; i + 64 <= bytes; i += 64) {
        a0 = _mm_add_epi64(a0, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i)));
        a1 = _mm_add_epi64(a1, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i + 16)));
        a2 = _mm_add_epi64(a2, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i + 32)));
        a3 = _mm_add_epi64(a3, _mm_load_si128(reinterpret_cast<const __m128i*>(p + i + 48)));
    }
    const __m128i s = _mm_add_epi64(_mm_add_epi64(a0, a1), _mm_add_epi64(a2, a3));
    return uint64_t(_mm_cvtsi128_si64(s)) + uint64_t(_mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s)));
#else
    uint64_t a[4] = {};
    for (size_t i = 0; i + 32 <= bytes; i += 32)
        for (int j = 0; j < 4; ++j) {
            uint64_t v;
            std::memcpy(&v, p + i + 8 * j, 8);
            a[j] += v;
        }
    return a[0] + a[1] + a[2] + a[3];
#endif
}

}  // namespace

double measure_read_bandwidth_gbs(size_t bytes, int threads) {
    bytes &= ~(size_t(kAlign) - 1);
    if (bytes == 0) return 0.0;
    std::unique_ptr<uint8_t, decltype(&std::free)> buffer(
        static_cast<uint8_t*>(std::aligned_alloc(kAlign, bytes)), &std::free);
    if (!buffer) throw std::bad_alloc();

    ThreadPool pool(threads);
    const int64_t lines = int64_t(bytes / kAlign);
    uint8_t* base = buffer.get();
    // Each thread writes the part it will read, so its pages are mapped (and on NUMA machines
    // local) before timing starts.
    pool.parallel_for(lines, [&](int64_t begin, int64_t end) {
        std::memset(base + begin * kAlign, int(begin & 0xff), size_t(end - begin) * kAlign);
    });

    std::atomic<uint64_t> sink{0};  // the sums are kept so the reads cannot be optimised away
    double best = 0.0;
    for (int pass = 0; pass < kPasses; ++pass) {
        const auto start = std::chrono::steady_clock::now();
        pool.parallel_for(lines, [&](int64_t begin, int64_t end) {
            sink.fetch_add(read_buffer(base + begin * kAlign, size_t(end - begin) * kAlign),
                           std::memory_order_relaxed);
        });
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        best = std::max(best, double(bytes) / seconds / 1e9);
    }
    volatile uint64_t keep = sink.load();
    (void)keep;
    return best;
}

}  // namespace kvw
