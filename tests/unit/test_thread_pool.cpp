// ThreadPool (core/backend/cpu/thread_pool.h): parallel_claims hands out every index once, in
// ranges of the grain, to whichever thread is free — a thread held up leaves the rest to the
// others — runs inline when nested, and rethrows a range's exception after the others ran;
// parallel_for keeps its static split.
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/backend/cpu/thread_pool.h"

using namespace kvw;

namespace {

// What parallel_claims did: how often each index was covered, and the ranges it gave.
struct Coverage {
    std::vector<std::atomic<int>> hits;
    std::mutex m;
    std::vector<std::pair<int64_t, int64_t>> ranges;

    explicit Coverage(int64_t n) : hits(size_t(n)) {}
    void take(int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) hits[size_t(i)].fetch_add(1);
        std::lock_guard lock(m);
        ranges.emplace_back(begin, end);
    }
};

// "" or what is wrong with the ranges of a run over [0, n) with that grain.
std::string coverage_problem(Coverage& c, int64_t n, int64_t grain) {
    for (int64_t i = 0; i < n; ++i)
        if (c.hits[size_t(i)] != 1)
            return "index " + std::to_string(i) + " covered " + std::to_string(c.hits[size_t(i)]) +
                   " times";
    for (const auto& [b, e] : c.ranges)
        if (b % grain != 0 || e != std::min(n, b + grain))
            return "range [" + std::to_string(b) + ", " + std::to_string(e) + ")";
    if (int64_t(c.ranges.size()) != (n + grain - 1) / grain)
        return std::to_string(c.ranges.size()) + " ranges";
    return "";
}

}  // namespace

class TestThreadPool : public QObject {
    Q_OBJECT

private slots:
    void claims_cover_every_index_once() {
        for (const int threads : {1, 2, 3, 5})
            for (const int64_t n : {0, 1, 7, 64, 1000})
                for (const int64_t grain : {1, 3, 16, 2000}) {
                    ThreadPool pool(threads);
                    Coverage c(n);
                    pool.parallel_claims(n, grain, [&](int64_t b, int64_t e) { c.take(b, e); });
                    const std::string problem = coverage_problem(c, n, grain);
                    QVERIFY2(problem.empty(), qPrintable(QString("%1 threads, n %2, grain %3: %4")
                                                             .arg(threads)
                                                             .arg(n)
                                                             .arg(grain)
                                                             .arg(problem.c_str())));
                }
    }

    // The calling thread's first range does not end until the other thread has taken every
    // other range (or ten seconds have passed): with claims it does; a static split would have
    // left half of them to the held thread.
    void a_held_thread_leaves_its_share_to_the_others() {
        ThreadPool pool(2);
        constexpr int64_t kRanges = 40;
        const std::thread::id caller = std::this_thread::get_id();
        std::mutex m;
        std::condition_variable cv;
        int64_t taken_elsewhere = 0, taken_by_caller = 0;
        bool held = false;
        pool.parallel_claims(kRanges, 1, [&](int64_t, int64_t) {
            std::unique_lock lock(m);
            if (std::this_thread::get_id() != caller) {
                ++taken_elsewhere;
                cv.notify_all();
                return;
            }
            ++taken_by_caller;
            if (held) return;
            held = true;
            cv.wait_for(lock, std::chrono::seconds(10),
                        [&] { return taken_elsewhere == kRanges - 1; });
        });
        // (0 when the other thread took every range before the caller took one)
        QVERIFY2(taken_by_caller <= 1, qPrintable(QString::number(taken_by_caller)));
        QCOMPARE(taken_by_caller + taken_elsewhere, kRanges);
    }

    void nested_claims_run_inline() {
        ThreadPool pool(3);
        std::vector<int> inner_ok(4, 0);
        pool.parallel_for(4, [&](int64_t begin, int64_t end) {
            for (int64_t outer = begin; outer < end; ++outer) {
                Coverage c(50);
                const std::thread::id here = std::this_thread::get_id();
                bool elsewhere = false;
                pool.parallel_claims(50, 4, [&](int64_t b, int64_t e) {
                    elsewhere = elsewhere || std::this_thread::get_id() != here;
                    c.take(b, e);
                });
                inner_ok[size_t(outer)] = coverage_problem(c, 50, 4).empty() && !elsewhere ? 1 : -1;
            }
        });
        QCOMPARE(inner_ok, std::vector<int>(4, 1));
    }

    void an_exception_is_rethrown_after_the_other_ranges() {
        for (const int threads : {1, 2, 3}) {
            ThreadPool pool(threads);
            Coverage c(100);
            bool thrown = false;
            try {
                pool.parallel_claims(100, 10, [&](int64_t b, int64_t e) {
                    if (b == 30) throw std::runtime_error("range 30");
                    c.take(b, e);
                });
            } catch (const std::runtime_error& e) {
                thrown = std::string(e.what()) == "range 30";
            }
            QVERIFY2(thrown, qPrintable(QString("%1 threads").arg(threads)));
            // With one thread the range that threw ends the only loop; with more, the thread
            // that threw takes nothing more and the others take every other range.
            for (int64_t i = 0; i < 100; ++i) {
                const int want = (i >= 30 && i < 40) || (threads == 1 && i >= 40) ? 0 : 1;
                QVERIFY2(c.hits[size_t(i)] == want,
                         qPrintable(QString("%1 threads: index %2 covered %3 times")
                                        .arg(threads)
                                        .arg(i)
                                        .arg(c.hits[size_t(i)].load())));
            }
        }
    }

    // parallel_for's split stays static: chunk i is [n·i/T, n·(i+1)/T) whatever the timing.
    void parallel_for_splits_statically() {
        ThreadPool pool(3);
        Coverage c(10);
        pool.parallel_for(10, [&](int64_t b, int64_t e) { c.take(b, e); });
        std::sort(c.ranges.begin(), c.ranges.end());
        const std::vector<std::pair<int64_t, int64_t>> want = {{0, 3}, {3, 6}, {6, 10}};
        QCOMPARE(c.ranges, want);
    }
};

QTEST_MAIN(TestThreadPool)
#include "test_thread_pool.moc"
