// FT-022 position tracking on the KvStore and through the StateManager: position starts at 0 and
// advances by rows written, prefill and decode share one write path, writing past the capacity
// is a typed error that changes nothing, reset empties the cache.
#include <QtTest>

#include <vector>

#include "core/cache/cache_error.h"
#include "core/cache/kv_store.h"
#include "state_fixture.h"
#include "tests/unit/error_checks.h"

using namespace kvw;
using namespace kvw::test;

class TestStateFt022 : public QObject {
    Q_OBJECT
private slots:
    // Every test once per cache layout (state_fixture.h).
    void initTestCase_data() { add_layout_rows(); }
    void init() { use_layout_row(); }

    void position_tracks_rows_written() {
        KvStore store(2, 4, 8);
        QCOMPARE(store.rows(0), 0);
        std::vector<float> k(12, 1.0f), v(12, 2.0f);
        store.append(0, k.data(), v.data(), 3);  // prefill
        QCOMPARE(store.rows(0), 3);
        QCOMPARE(store.rows(1), 0);
        store.append(0, k.data(), v.data(), 1);  // decode
        QCOMPARE(store.rows(0), 4);
        QCOMPARE(store.remaining(0), 4);
        QVERIFY(store.remaining(0) > 0);
    }

    void rows_move_inside_the_buffer() {
        KvStore store(1, 2, 6);
        const std::vector<float> k{0, 0, 1, 1, 2, 2}, v{5, 5, 6, 6, 7, 7};
        store.append(0, k.data(), v.data(), 3);
        const float* base = store.view(0).k.f32();
        const std::vector<float> nk{9, 9}, nv{8, 8};
        store.insert(0, 1, nk.data(), nv.data(), 1);
        store.remove(0, 0);
        QCOMPARE(store.view(0).k.f32(), base);  // never reallocated
        const std::vector<float> expect_k{9, 9, 1, 1, 2, 2}, expect_v{8, 8, 6, 6, 7, 7};
        QCOMPARE(std::vector<float>(base, base + 6), expect_k);
        QCOMPARE(std::vector<float>(store.view(0).v.f32(), store.view(0).v.f32() + 6), expect_v);
    }

    void overflow_names_position_and_capacity_and_changes_nothing() {
        KvStore store(1, 2, 4);
        std::vector<float> k(10, 1.0f), v(10, 1.0f);
        store.append(0, k.data(), v.data(), 3);
        const std::vector<float> before(store.view(0).k.f32(), store.view(0).k.f32() + 6);
        QCOMPARE(test::capacity_exceeded_mismatch([&] { store.append(0, k.data(), v.data(), 2); },
                                                  0, 3, 2, 4),
                 QString());
        QCOMPARE(store.rows(0), 3);
        QCOMPARE(std::vector<float>(store.view(0).k.f32(), store.view(0).k.f32() + 6), before);
    }

    void state_overflow_changes_nothing() {
        StateManager s = make_state(8);
        std::mt19937 rng(1);
        s.append(random_tokens(rng, 6), EntryKind::Prompt, 0);
        const uint64_t hash = s.state_hash();
        QVERIFY_THROWS_EXCEPTION(CapacityExceeded,
                                 s.append(random_tokens(rng, 3), EntryKind::Generated, 1));
        QVERIFY_THROWS_EXCEPTION(CapacityExceeded,
                                 s.insert({}, 2, random_tokens(rng, 3), EntryKind::Gist, 1));
        QCOMPARE(s.state_hash(), hash);
        QCOMPARE(s.cache().rows(0), 6);
    }

    void reset_empties_cache_and_map_but_not_ledger() {
        StateManager s = make_state(8);
        std::mt19937 rng(2);
        s.append(random_tokens(rng, 5), EntryKind::Prompt, 0);
        s.reset(1);
        for (int l = 0; l < s.n_layers(); ++l) {
            QCOMPARE(s.cache().rows(l), 0);
            QCOMPARE(s.rows(l), 0);
        }
        QCOMPARE(s.ledger().size(), int64_t(5));
        for (const LedgerEntry& e : s.ledger().entries()) QCOMPARE(e.died_tick, int64_t(1));
        QVERIFY(all_passed(s.check_invariants()));
        s.append(random_tokens(rng, 2), EntryKind::Prompt, 2);
        QCOMPARE(s.cache().rows(0), 2);
        QCOMPARE(s.layer_map(0).rope_pos, (std::vector<int32_t>{0, 1}));
    }

    // One prefill of n tokens and n single-token decodes write the same cache and logits.
    void prefill_equals_decode() {
        std::mt19937 rng(3);
        const std::vector<int32_t> toks = random_tokens(rng, 7);
        StateManager prefill = make_state(16), decode = make_state(16);
        const std::vector<float> logits_p = prefill.append(toks, EntryKind::Prompt, 0);
        std::vector<float> logits_d;
        for (int32_t t : toks)
            logits_d = decode.append(std::vector<int32_t>{t}, EntryKind::Prompt, 0);
        QCOMPARE(logits_p, logits_d);
        for (int l = 0; l < prefill.n_layers(); ++l) {
            const LayerContext a = prefill.cache().view(l), b = decode.cache().view(l);
            QCOMPARE(a.rows, 7);
            QCOMPARE(b.rows, 7);
            const size_t n = size_t(7 * prefill.cache().kv_dim());
            QCOMPARE(std::vector<float>(a.k.f32(), a.k.f32() + n),
                     std::vector<float>(b.k.f32(), b.k.f32() + n));
            QCOMPARE(std::vector<float>(a.v.f32(), a.v.f32() + n),
                     std::vector<float>(b.v.f32(), b.v.f32() + n));
        }
    }
};

QTEST_APPLESS_MAIN(TestStateFt022)
#include "test_state_ft022.moc"
