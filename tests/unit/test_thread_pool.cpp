// ThreadPool (core/backend/cpu/thread_pool.h): parallel_claims hands out every index once, in
// ranges of the grain, to whichever thread is free — a thread held up leaves the rest to the
// others — runs inline when nested, and rethrows a range's exception after the others ran;
// parallel_walks runs every unit once, each walker's `next` being the unit it runs next, its
// own share forward and others' from the back; parallel_for keeps its static split.
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

// Holds the calling thread in its first piece of work until the other threads have done
// `others_want` pieces (or ten seconds have passed), and counts who did how many.
class HeldCaller {
public:
    explicit HeldCaller(int64_t others_want) : others_want_(others_want) {}

    void piece() {
        std::unique_lock lock(m_);
        if (std::this_thread::get_id() != caller_) {
            ++elsewhere_;
            cv_.notify_all();
            return;
        }
        ++by_caller_;
        if (held_) return;
        held_ = true;
        cv_.wait_for(lock, std::chrono::seconds(10), [&] { return elsewhere_ == others_want_; });
    }
    int64_t by_caller() const { return by_caller_; }
    int64_t elsewhere() const { return elsewhere_; }

private:
    const std::thread::id caller_ = std::this_thread::get_id();
    const int64_t others_want_;
    std::mutex m_;
    std::condition_variable cv_;
    int64_t elsewhere_ = 0, by_caller_ = 0;
    bool held_ = false;
};

// What parallel_walks did: each walker's calls (unit, next) in the order it made them.
struct Walks {
    std::mutex m;
    std::vector<std::vector<std::pair<int64_t, int64_t>>> calls;
    std::vector<std::thread::id> thread_of;

    explicit Walks(int walkers) : calls(size_t(walkers)), thread_of(size_t(walkers)) {}
    void take(int walker, int64_t unit, int64_t next) {
        std::lock_guard lock(m);
        calls.at(size_t(walker)).emplace_back(unit, next);
        thread_of[size_t(walker)] = std::this_thread::get_id();
    }
};

// "" or what is wrong with the walks over [0, n) of a pool of `threads`: every unit once, each
// call's next the walker's next call's unit (-1 after its last), each walker's units up to its
// first taken from another share the front of its own share, in order.
std::string walk_problem(const Walks& w, int64_t n, int threads) {
    std::vector<int> hits(size_t(n), 0);
    const int shares = int(std::min<int64_t>(n, threads));
    for (size_t walker = 0; walker < w.calls.size(); ++walker) {
        const auto& calls = w.calls[walker];
        if (calls.empty()) continue;
        if (int(walker) >= shares) return "walker " + std::to_string(walker) + " past the shares";
        const int64_t front = n * int64_t(walker) / shares, back = n * int64_t(walker + 1) / shares;
        bool own = true;
        for (size_t i = 0; i < calls.size(); ++i) {
            const auto [unit, next] = calls[i];
            if (unit < 0 || unit >= n) return "unit " + std::to_string(unit);
            ++hits[size_t(unit)];
            const int64_t want_next = i + 1 < calls.size() ? calls[i + 1].first : -1;
            if (next != want_next)
                return "walker " + std::to_string(walker) + ": next " + std::to_string(next) +
                       " then ran " + std::to_string(want_next);
            own = own && unit >= front && unit < back;
            if (own && unit != front + int64_t(i))
                return "walker " + std::to_string(walker) + " took " + std::to_string(unit) +
                       " of its share out of order";
        }
    }
    for (int64_t u = 0; u < n; ++u)
        if (hits[size_t(u)] != 1)
            return "unit " + std::to_string(u) + " run " + std::to_string(hits[size_t(u)]) +
                   " times";
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
        HeldCaller held(kRanges - 1);
        pool.parallel_claims(kRanges, 1, [&](int64_t, int64_t) { held.piece(); });
        // (0 when the other thread took every range before the caller took one)
        QVERIFY2(held.by_caller() <= 1, qPrintable(QString::number(held.by_caller())));
        QCOMPARE(held.by_caller() + held.elsewhere(), kRanges);
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

    void walks_run_every_unit_once_in_order() {
        for (const int threads : {1, 2, 3, 5})
            for (const int64_t n : {0, 1, 2, 7, 64, 1000}) {
                ThreadPool pool(threads);
                Walks w(pool.size());
                pool.parallel_walks(
                    n, [&](int walker, int64_t unit, int64_t next) { w.take(walker, unit, next); });
                const std::string problem = walk_problem(w, n, threads);
                QVERIFY2(
                    problem.empty(),
                    qPrintable(
                        QString("%1 threads, n %2: %3").arg(threads).arg(n).arg(problem.c_str())));
            }
    }

    // The calling thread holds its first unit until the other thread has run every unit but
    // that one and the one the caller took next (or ten seconds have passed): the other thread
    // takes the caller's share from its back; a static split would have left it waiting.
    void a_held_walker_leaves_its_share_to_the_others() {
        ThreadPool pool(2);
        constexpr int64_t kUnits = 40;
        HeldCaller held(kUnits - 2);
        Walks w(pool.size());
        pool.parallel_walks(kUnits, [&](int walker, int64_t unit, int64_t next) {
            w.take(walker, unit, next);
            held.piece();
        });
        QVERIFY2(held.by_caller() <= 2, qPrintable(QString::number(held.by_caller())));
        QCOMPARE(held.by_caller() + held.elsewhere(), kUnits);
        const std::string problem = walk_problem(w, kUnits, 2);
        QVERIFY2(problem.empty(), problem.c_str());
    }

    void nested_walks_run_inline() {
        ThreadPool pool(3);
        std::vector<int> inner_ok(4, 0);
        pool.parallel_for(4, [&](int64_t begin, int64_t end) {
            for (int64_t outer = begin; outer < end; ++outer) {
                Walks w(pool.size());
                pool.parallel_walks(50, [&](int walker, int64_t unit, int64_t next) {
                    w.take(walker, unit, next);
                });
                const bool here =
                    w.calls[0].size() == 50 && w.thread_of[0] == std::this_thread::get_id();
                inner_ok[size_t(outer)] = walk_problem(w, 50, 3).empty() && here ? 1 : -1;
            }
        });
        QCOMPARE(inner_ok, std::vector<int>(4, 1));
    }

    void a_walk_exception_is_rethrown() {
        for (const int threads : {1, 2, 3}) {
            ThreadPool pool(threads);
            std::atomic<int> run{0};
            bool thrown = false;
            try {
                pool.parallel_walks(100, [&](int, int64_t unit, int64_t) {
                    if (unit == 30) throw std::runtime_error("unit 30");
                    ++run;
                });
            } catch (const std::runtime_error& e) {
                thrown = std::string(e.what()) == "unit 30";
            }
            QVERIFY2(thrown, qPrintable(QString("%1 threads").arg(threads)));
            // The walker that threw had taken one unit more, which it does not run; the others
            // run the rest.
            QVERIFY2(run.load() <= 98, qPrintable(QString::number(run.load())));
            if (threads > 1) QVERIFY2(run.load() >= 70, qPrintable(QString::number(run.load())));
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
