#include "core/backend/cpu/memory_bandwidth.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "core/backend/cpu/thread_pool.h"
#include "core/io/huge_page_region.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace kvw {

namespace {

constexpr int kPasses = 3;
constexpr size_t kAlign = 64;

// Reads [p, p + bytes) as `streams` equal parts walked in lockstep, 64 bytes of each per step.
// One sequential stream per core does not saturate memory on every machine (a core has few
// misses in flight and the prefetcher follows a limited number of streams), and the matmul
// kernels read eight weight rows at once, so the ceiling is the best over 1, 2, 4 and 8 streams.
// SSE2 is part of x86-64, so this needs no run-time dispatch.
uint64_t read_streams(const uint8_t* p, size_t bytes, int streams) {
    const size_t per = bytes / size_t(streams) & ~(kAlign - 1);
#if defined(__x86_64__)
    __m128i acc[8][2];
    for (int s = 0; s < streams; ++s) acc[s][0] = acc[s][1] = _mm_setzero_si128();
    for (size_t i = 0; i < per; i += kAlign) {
        for (int s = 0; s < streams; ++s) {
            const auto* q = reinterpret_cast<const __m128i*>(p + size_t(s) * per + i);
            acc[s][0] =
                _mm_add_epi64(acc[s][0], _mm_add_epi64(_mm_load_si128(q), _mm_load_si128(q + 1)));
            acc[s][1] = _mm_add_epi64(acc[s][1],
                                      _mm_add_epi64(_mm_load_si128(q + 2), _mm_load_si128(q + 3)));
        }
    }
    __m128i sum = _mm_setzero_si128();
    for (int s = 0; s < streams; ++s) sum = _mm_add_epi64(sum, _mm_add_epi64(acc[s][0], acc[s][1]));
    return uint64_t(_mm_cvtsi128_si64(sum)) +
           uint64_t(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sum, sum)));
#else
    uint64_t sum = 0;
    for (size_t i = 0; i < per; i += kAlign)
        for (int s = 0; s < streams; ++s) {
            uint64_t v;
            std::memcpy(&v, p + size_t(s) * per + i, 8);
            sum += v;
        }
    return sum;
#endif
}

}  // namespace

double measure_read_bandwidth_gbs(size_t bytes, int threads) {
    bytes &= ~(size_t(kAlign) - 1);
    if (bytes == 0) return 0.0;
    // In huge pages, as the weights and the K/V rows are: with 4 KiB pages this VM's ceiling
    // read 25-29 GB/s, with huge pages 36, and decode from huge pages streamed faster than the
    // 4 KiB "ceiling".
    const HugePageRegion buffer(bytes);

    ThreadPool pool(threads);
    const int64_t lines = int64_t(bytes / kAlign);
    uint8_t* base = buffer.data();
    // Each thread writes the part it will read, so its pages are mapped (and on NUMA machines
    // local) before timing starts.
    pool.parallel_for(lines, [&](int64_t begin, int64_t end) {
        std::memset(base + begin * kAlign, int(begin & 0xff), size_t(end - begin) * kAlign);
    });

    std::atomic<uint64_t> sink{0};  // the sums are kept so the reads cannot be optimised away
    double best = 0.0;
    for (const int streams : {1, 2, 4, 8}) {
        for (int pass = 0; pass < kPasses; ++pass) {
            const auto start = std::chrono::steady_clock::now();
            pool.parallel_for(lines, [&](int64_t begin, int64_t end) {
                sink.fetch_add(
                    read_streams(base + begin * kAlign, size_t(end - begin) * kAlign, streams),
                    std::memory_order_relaxed);
            });
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            best = std::max(best, double(bytes) / seconds / 1e9);
        }
    }
    volatile uint64_t keep = sink.load();
    (void)keep;
    return best;
}

}  // namespace kvw
