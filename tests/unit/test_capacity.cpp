// Counts that size memory are checked before anything is allocated, with typed errors that name
// the value: a cache capacity from SessionOptions (flags, the window), from a trace header and
// against a memory budget; sampling counts from the same places.
#include <QtTest>

#include <cmath>
#include <limits>
#include <string>

#include "core/cache/cache_capacity.h"
#include "core/engine/sampler.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "state_fixture.h"

using namespace kvw;

namespace {

SessionOptions with_capacity(int64_t capacity) {
    SessionOptions o;
    o.capacity = capacity;
    return o;
}

// The InvalidCapacity a session with `capacity` throws.
InvalidCapacity refusal(int64_t capacity) {
    try {
        Session s(with_capacity(capacity), test::tiny().model);
    } catch (const InvalidCapacity& e) {
        return e;
    }
    qFatal("capacity %lld was accepted", static_cast<long long>(capacity));
}

bool says(const std::exception& e, const std::string& text) {
    return std::string(e.what()).find(text) != std::string::npos;
}

}  // namespace

class TestCapacity : public QObject {
    Q_OBJECT
private slots:
    void negative_capacities_are_refused() {
        for (const int64_t capacity :
             {int64_t(-5), int64_t(-1), std::numeric_limits<int64_t>::min()}) {
            const InvalidCapacity e = refusal(capacity);
            QVERIFY(e.fault() == CapacityFault::Negative);
            QCOMPARE(e.requested(), capacity);
            QVERIFY2(says(e, std::to_string(capacity)), e.what());
        }
    }

    void capacities_beyond_the_context_are_refused_as_given() {
        const int context = test::tiny().model->config.max_context;
        // 4294967297 is 1 after a cast to int: it must be refused as itself.
        for (const int64_t capacity : {int64_t(context) + 1, int64_t(2000000000),
                                       int64_t(4294967297), std::numeric_limits<int64_t>::max()}) {
            const InvalidCapacity e = refusal(capacity);
            QVERIFY(e.fault() == CapacityFault::BeyondContext);
            QCOMPARE(e.requested(), capacity);
            QCOMPARE(e.limit(), int64_t(context));
            QVERIFY2(says(e, std::to_string(capacity)) && says(e, std::to_string(context)),
                     e.what());
        }
    }

    void the_context_itself_and_the_default_are_accepted() {
        const int context = test::tiny().model->config.max_context;
        Session full(with_capacity(context), test::tiny().model);
        QCOMPARE(full.state().cache().capacity(), context);
        QCOMPARE(full.frame()->capacity, context);
        Session by_default(with_capacity(0), test::tiny().model);
        QCOMPARE(by_default.state().cache().capacity(), std::min(context, 8192));
    }

    void a_cache_beyond_the_memory_budget_is_refused() {
        const ModelConfig& c = test::tiny().model->config;
        // K and V, float, every layer: what one row of the cache takes.
        const uint64_t row_bytes =
            2ull * uint64_t(c.n_layers) * uint64_t(c.n_kv_heads) * uint64_t(c.head_dim) * 4;
        StateOptions o;
        o.capacity = 100;
        o.memory_budget = 100 * row_bytes;
        const StateManager fits(test::tiny().engine, o);
        QCOMPARE(fits.cache().capacity(), 100);
        o.memory_budget = 100 * row_bytes - 1;
        try {
            const StateManager too_big(test::tiny().engine, o);
            QFAIL("a cache beyond the budget was made");
        } catch (const InvalidCapacity& e) {
            QVERIFY(e.fault() == CapacityFault::BeyondMemory);
            QCOMPARE(e.requested(), int64_t(100));
            QCOMPARE(e.limit(), int64_t(99));
            QVERIFY2(says(e, "100 rows"), e.what());
        }
    }

    // A ring's pointer / lut scratch and checksum shadow are whole extra slabs and lut's index
    // tables extra bytes: the budget counts them before anything is allocated, for a new state
    // and for a live one moving to the ring (refused with nothing changed).
    void ring_scratch_shadow_and_tables_count_against_the_budget() {
        const ModelConfig& c = test::tiny().model->config;
        const uint64_t row_bytes =  // K and V, float, every layer (f32 keeps no clip counters)
            2ull * uint64_t(c.n_layers) * uint64_t(c.n_kv_heads) * uint64_t(c.head_dim) * 4;
        struct Case {
            RingOptions ring;
            uint64_t bytes;  // what a ring of 100 rows takes, by hand
        };
        const Case cases[] = {
            {{RingMode::Roll, 0, 1, false}, 100 * row_bytes},
            {{RingMode::Roll, 0, 1, true}, 2 * 100 * row_bytes},                 // + shadow
            {{RingMode::Pointer, 0, 1, false}, 2 * 100 * row_bytes},             // + scratch
            {{RingMode::Pointer, 0, 1, true}, 3 * 100 * row_bytes},              // + both
            {{RingMode::Lut, 4, 8, false}, 2 * 100 * row_bytes + 12 * 100 * 4},  // + 12 tables
        };
        for (const Case& k : cases) {
            StateOptions o;
            o.capacity = 100;
            o.layout = CacheLayout::Ring;
            o.ring = k.ring;
            o.memory_budget = k.bytes;
            const StateManager fits(test::tiny().engine, o);
            QCOMPARE(fits.cache().capacity(), 100);
            o.memory_budget = k.bytes - 1;
            try {
                const StateManager too_big(test::tiny().engine, o);
                QFAIL("a ring beyond the budget was made");
            } catch (const InvalidCapacity& e) {
                QVERIFY(e.fault() == CapacityFault::BeyondMemory);
                QCOMPARE(e.requested(), int64_t(100));
                QVERIFY(e.limit() < 100);
            }
        }
        // The limit is the largest ring that fits: pointer + checksum keep 3 slabs, 33 rows.
        StateOptions o;
        o.capacity = 100;
        o.layout = CacheLayout::Ring;
        o.ring = {RingMode::Pointer, 0, 1, true};
        o.memory_budget = 100 * row_bytes;
        try {
            const StateManager too_big(test::tiny().engine, o);
            QFAIL("a ring beyond the budget was made");
        } catch (const InvalidCapacity& e) {
            QCOMPARE(e.limit(), int64_t(33));
        }
        // A live contiguous state at exactly its budget cannot move to a pointer ring.
        o.layout = CacheLayout::Contiguous;
        StateManager live(test::tiny().engine, o);
        std::mt19937 rng(1);
        live.append(test::random_tokens(rng, 5), EntryKind::Prompt, 0);
        const uint64_t hash = live.state_hash();
        QVERIFY_THROWS_EXCEPTION(InvalidCapacity,
                                 live.set_layout(CacheLayout::Ring, {RingMode::Pointer, 0, 1}));
        QCOMPARE(live.cache().layout(), CacheLayout::Contiguous);
        QCOMPARE(live.state_hash(), hash);
        live.set_layout(CacheLayout::Ring, {RingMode::Roll, 0, 1});  // one slab: fits
        QCOMPARE(live.state_hash(), hash);
    }

    // A trace header is as untrusted as a flag: replaying one with a huge capacity names it.
    void a_trace_header_with_a_huge_capacity_is_refused() {
        Session recorded(with_capacity(64), test::tiny().model);
        recorded.start("the cache");
        recorded.step();
        for (const int64_t capacity : {int64_t(2000000000), int64_t(4294967297), int64_t(-5)}) {
            Trace edited;
            for (nlohmann::json e : recorded.trace().events()) {
                if (e.contains("kvw_trace")) e["capacity"] = capacity;
                edited.add(e);
            }
            try {
                replay_trace(edited);
                QFAIL("the trace was replayed");
            } catch (const InvalidCapacity& e) {
                QCOMPARE(e.requested(), capacity);
            }
        }
    }

    void bad_sampling_counts_are_named() {
        const auto refused = [](SamplingParams p, const std::string& quoted) {
            try {
                Sampler s(p);
            } catch (const std::invalid_argument& e) {
                return says(e, quoted);
            }
            return false;
        };
        SamplingParams p;
        p.top_k = -1;
        QVERIFY(refused(p, "top_k -1"));
        p = {};
        p.temperature = std::numeric_limits<float>::quiet_NaN();
        QVERIFY(refused(p, "temperature nan"));
        p = {};
        p.temperature = -0.5f;
        QVERIFY(refused(p, "temperature -0.5"));
        for (const float top_p : {0.0f, 1.5f, -1.0f}) {
            p = {};
            p.top_p = top_p;
            QVERIFY(refused(p, "top_p " + std::to_string(top_p)));
        }
        p = {};
        p.top_k = 1 << 30;  // more than the vocabulary: every token is a candidate
        Sampler fine(p);
    }
};

QTEST_APPLESS_MAIN(TestCapacity)
#include "test_capacity.moc"
