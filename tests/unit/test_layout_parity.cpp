// The three cache layouts hold the same logical rows: row edits checked against a plain
// std::vector model, random ticks through StateManager giving bitwise identical caches and
// mirrors, capacity errors that change nothing, and indirection compaction that frees slab
// rows without touching the logical ones.
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <random>
#include <vector>

#include "core/cache/indirection_layout.h"
#include "core/state/tick.h"
#include "state_fixture.h"
#include "tests/unit/error_checks.h"

using namespace kvw;
using namespace kvw::test;

Q_DECLARE_METATYPE(kvw::RopePolicy)

namespace {

// One logical row as the model holds it: kv_dim floats of K, then kv_dim of V.
using Row = std::vector<float>;

Row make_row(std::mt19937& rng, int kv_dim) {
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    Row r(size_t(2 * kv_dim));
    for (float& x : r) x = value(rng);
    return r;
}

// The layer's logical rows as the layout shows them, read both ways: row by row, and through a
// view as the engine reads it.
std::vector<Row> read_rows(const KvLayout& cache, int layer) {
    const int d = cache.kv_dim();
    std::vector<Row> rows;
    const LayerContext view = cache.view(layer);
    for (int r = 0; r < cache.rows(layer); ++r) {
        Row row(2 * size_t(d));
        cache.read_k(layer, r, row.data());
        cache.read_v(layer, r, row.data() + d);
        rows.push_back(row);
    }
    for (int r = 0; r < view.rows; ++r) {
        const float* k = view.k.f32() + view.physical_row(r) * size_t(d);
        const float* v = view.v.f32() + view.physical_row(r) * size_t(d);
        if (!std::equal(k, k + d, rows[size_t(r)].begin()) ||
            !std::equal(v, v + d, rows[size_t(r)].begin() + d))
            return {};  // the view disagrees with the rows: the caller's comparison fails
    }
    return rows;
}

void write_rows(KvLayout& cache, int layer, int row, const std::vector<Row>& rows, bool overwrite) {
    const int d = cache.kv_dim();
    std::vector<float> k, v;
    for (const Row& r : rows) {
        k.insert(k.end(), r.begin(), r.begin() + d);
        v.insert(v.end(), r.begin() + d, r.end());
    }
    if (overwrite)
        cache.overwrite(layer, row, k.data(), v.data(), int(rows.size()));
    else
        cache.insert(layer, row, k.data(), v.data(), int(rows.size()));
}

// Equal logical K and V bytes in every layer, equal pos2ledger and rope_pos.
void compare_states(const StateManager& a, const StateManager& b) {
    for (int l = 0; l < a.n_layers(); ++l) {
        QCOMPARE(b.cache().rows(l), a.cache().rows(l));
        QCOMPARE(b.layer_map(l).pos2ledger, a.layer_map(l).pos2ledger);
        QCOMPARE(b.layer_map(l).rope_pos, a.layer_map(l).rope_pos);
        for (int r = 0; r < a.cache().rows(l); ++r)
            QVERIFY2(a.cache().stored_row(l, r) == b.cache().stored_row(l, r),
                     qPrintable(QString("K/V layer %1 row %2").arg(l).arg(r)));
    }
    QCOMPARE(b.state_hash(), a.state_hash());
}

// A random action list that pre-flight accepts: actions are drawn one at a time and kept only
// when the list stays valid, so positions, overlaps and capacity follow validate_action_list.
ActionList random_valid_list(std::mt19937& rng, const StateManager& s) {
    const SequenceShape shape = sequence_shape(s);
    const int n_layers = s.n_layers();
    const auto [lo, hi] =
        std::minmax_element(shape.rows_per_layer.begin(), shape.rows_per_layer.end());
    const int min_rows = *lo;
    // Keep every layer between 10 rows and the capacity: shrink when full, grow when short.
    const bool crowded = *hi > shape.capacity - 8, short_of_rows = min_rows < 10;
    ActionList list;
    const int tries = 1 + int(rng() % 5);
    for (int t = 0; t < tries; ++t) {
        Action a;
        const int pos = int(rng() % unsigned(std::max(min_rows, 1)));
        const int kind = short_of_rows ? 1 + int(rng() % 2) : int(rng() % (crowded ? 2 : 3));
        if (kind == 0)
            a.op = DeleteAction{pos};
        else if (kind == 1)
            a.op = ReplacePairAction{pos, pos + 1 + int(rng() % 3),
                                     random_tokens(rng, crowded ? 1 : 1 + int(rng() % 3))};
        else
            a.op = AddAction{random_tokens(rng, 1)[0]};
        if (rng() % 3 == 0 && !std::holds_alternative<AddAction>(a.op))
            for (int l = 0; l < n_layers; ++l)
                if (rng() % 2) a.layers.push_back(l);
        list.push_back(a);
        if (!validate_action_list(list, shape).empty()) list.pop_back();
    }
    return list;
}

}  // namespace

class TestLayoutParity : public QObject {
    Q_OBJECT
private slots:
    // Random inserts, removes, overwrites, truncates and reads of one layer against a plain
    // vector of rows; reads land between edits, so batch-splice applies its pending edits at
    // arbitrary points and indirection compacts along the way.
    void rows_follow_a_plain_model_data() { add_layout_rows(); }
    void rows_follow_a_plain_model() {
        QFETCH(CacheLayout, layout);
        constexpr int kDim = 6, kCap = 24;
        const auto cache = make_kv_layout(layout, 2, kDim, kCap);
        std::vector<Row> model;
        std::mt19937 rng(5);
        int shrank = 0;
        for (int step = 0; step < 3000; ++step) {
            const int rows = int(model.size());
            const int before = cache->physical_rows(1);
            switch (rng() % 8) {
                case 0:
                case 1:
                case 2: {  // insert 1-3 rows anywhere
                    const int n = 1 + int(rng() % 3);
                    if (rows + n > kCap) break;
                    const int at = int(rng() % unsigned(rows + 1));
                    std::vector<Row> fresh;
                    for (int i = 0; i < n; ++i) fresh.push_back(make_row(rng, kDim));
                    write_rows(*cache, 1, at, fresh, false);
                    model.insert(model.begin() + at, fresh.begin(), fresh.end());
                    break;
                }
                case 3:
                case 4:
                case 5:
                    if (rows == 0) break;
                    {
                        const int at = int(rng() % unsigned(rows));
                        cache->remove(1, at);
                        model.erase(model.begin() + at);
                    }
                    break;
                case 6:
                    if (rows == 0) break;
                    if (rng() % 4 == 0) {
                        const int keep = int(rng() % unsigned(rows));
                        cache->truncate(1, keep);
                        model.resize(size_t(keep));
                    } else {
                        const int at = int(rng() % unsigned(rows));
                        const Row fresh = make_row(rng, kDim);
                        write_rows(*cache, 1, at, {fresh}, true);
                        model[size_t(at)] = fresh;
                    }
                    break;
                default:  // a read of a prefix, as insert's context is read
                    if (rows > 0) {
                        const int n = int(rng() % unsigned(rows));
                        const LayerContext v = cache->view(1, n);
                        for (int r = 0; r < n; ++r)
                            QVERIFY(std::equal(model[size_t(r)].begin(),
                                               model[size_t(r)].begin() + kDim,
                                               v.k.f32() + v.physical_row(r) * kDim));
                    }
            }
            QCOMPARE(cache->rows(1), int(model.size()));
            QCOMPARE(cache->rows(0), 0);
            QVERIFY(cache->physical_rows(1) <= kCap);
            if (cache->physical_rows(1) < before) ++shrank;
            if (step % 7 == 0) QCOMPARE(read_rows(*cache, 1), model);
        }
        QCOMPARE(read_rows(*cache, 1), model);
        if (layout == CacheLayout::Indirection) QVERIFY(shrank > 0);
        cache->reset();
        QCOMPARE(cache->rows(1), 0);
    }

    // The same random ticks (deletes, 1-3 token replacements, adds, layer-restricted actions)
    // through each layout: caches, mirrors and hashes equal to the byte after every tick.
    void random_ticks_are_bitwise_identical_data() {
        QTest::addColumn<RopePolicy>("policy");
        QTest::newRow("final_index") << RopePolicy::FinalIndex;
        QTest::newRow("reindex") << RopePolicy::Reindex;
    }
    void random_ticks_are_bitwise_identical() {
        QFETCH(RopePolicy, policy);
        constexpr int kCapacity = 40;
        std::vector<StateManager> states;
        states.reserve(std::size(kAllLayouts));
        for (CacheLayout l : kAllLayouts)
            states.emplace_back(tiny().engine, StateOptions{kCapacity, policy, true, l});
        std::mt19937 rng(99);
        const std::vector<int32_t> prompt = random_tokens(rng, 20);
        for (StateManager& s : states) s.append(prompt, EntryKind::Prompt, 0);
        int shrank = 0, restricted = 0;
        for (int tick = 1; tick <= 150; ++tick) {
            const ActionList list = random_valid_list(rng, states[0]);
            for (const Action& a : list) restricted += !a.layers.empty();
            const int physical = states[2].cache().physical_rows(0);
            for (StateManager& s : states) {
                const TickResult r = apply_action_list(s, list, tick);
                QVERIFY(!r.rejected && !r.aborted);
            }
            if (states[2].cache().physical_rows(0) < physical) ++shrank;
            for (size_t i = 1; i < states.size(); ++i) compare_states(states[0], states[i]);
            if (QTest::currentTestFailed()) QFAIL(qPrintable(QString("tick %1").arg(tick)));
        }
        QVERIFY(restricted > 20);
        QVERIFY(shrank > 0);
        QVERIFY(dynamic_cast<const IndirectionLayout&>(states[2].cache()).compactions() > 0);
        // The numeric paths read every layout too.
        for (StateManager& s : states) {
            const DriftReport d = s.measure_drift();
            QCOMPARE(d.layers.size(), size_t(s.n_layers()));
            s.rebuild_from_mirror();
            QCOMPARE(max_drift(s.measure_drift()), 0.0f);
        }
        for (size_t i = 1; i < states.size(); ++i) compare_states(states[0], states[i]);
    }

    // A fault after the cache changed and before the mirror did, at each primitive of a tick:
    // the tick aborts and rebuilds from the mirror in every layout (batch-splice with edits
    // still pending, indirection with dead rows), and the layouts still agree to the byte.
    void aborted_ticks_rebuild_identically() {
        std::mt19937 rng(17);
        const std::vector<int32_t> prompt = random_tokens(rng, 14);
        const ActionList list{{ReplacePairAction{9, 11, random_tokens(rng, 2)}, {}},
                              {DeleteAction{6}, {1, 3}},
                              {ReplacePairAction{2, 3, random_tokens(rng, 1)}, {}},
                              {AddAction{11}, {}}};
        for (int k = 1; k <= 9; ++k) {  // 3 + 1 + 3 primitives, the append, then none
            std::vector<StateManager> states;
            states.reserve(std::size(kAllLayouts));
            for (CacheLayout l : kAllLayouts) {
                states.emplace_back(tiny().engine,
                                    StateOptions{32, RopePolicy::FinalIndex, true, l});
                states.back().append(prompt, EntryKind::Prompt, 0);
                states.back().inject_fault_at(k);
                const TickResult r = apply_action_list(states.back(), list, 1);
                QCOMPARE(r.aborted, k <= 8);
            }
            for (size_t i = 1; i < states.size(); ++i) compare_states(states[0], states[i]);
            if (k <= 8) QCOMPARE(max_drift(states[1].measure_drift()), 0.0f);
        }
    }

    // A write past the capacity throws before anything changes, with edits pending (through
    // StateManager: test_state_ft022, which runs once per layout).
    void capacity_exceeded_changes_nothing_data() { add_layout_rows(); }
    void capacity_exceeded_changes_nothing() {
        QFETCH(CacheLayout, layout);
        const auto cache = make_kv_layout(layout, 1, 4, 6);
        std::mt19937 rng(3);
        std::vector<Row> model;
        for (int i = 0; i < 5; ++i) model.push_back(make_row(rng, 4));
        write_rows(*cache, 0, 0, model, false);
        // Edits not read since: pending in batch-splice, dead slab rows in indirection.
        cache->remove(0, 1);
        model.erase(model.begin() + 1);
        model.insert(model.begin(), make_row(rng, 4));
        write_rows(*cache, 0, 0, {model.front()}, false);
        cache->remove(0, 3);
        model.erase(model.begin() + 3);
        const int physical = cache->physical_rows(0);
        const std::vector<Row> three{make_row(rng, 4), make_row(rng, 4), make_row(rng, 4)};
        QCOMPARE(test::capacity_exceeded_mismatch([&] { write_rows(*cache, 0, 2, three, false); },
                                                  0, 4, 3, 6),
                 QString());
        QCOMPARE(cache->rows(0), 4);
        QCOMPARE(cache->physical_rows(0), physical);
        QCOMPARE(read_rows(*cache, 0), model);
    }

    // Removing most rows compacts the slab (fewer physical rows) and keeps the logical rows;
    // running out of free slab rows compacts too.
    void indirection_compaction_keeps_logical_rows() {
        IndirectionLayout cache(1, 3, 10);
        std::mt19937 rng(8);
        std::vector<Row> model;
        for (int i = 0; i < 8; ++i) model.push_back(make_row(rng, 3));
        write_rows(cache, 0, 0, model, false);
        for (int row : {6, 4, 2, 0}) {  // 4 of 8 dead: not yet more than half
            cache.remove(0, row);
            model.erase(model.begin() + row);
        }
        QCOMPARE(cache.physical_rows(0), 8);
        QCOMPARE(cache.compactions(), int64_t(0));
        cache.remove(0, 1);  // 5 of 8 dead
        model.erase(model.begin() + 1);
        QCOMPARE(cache.compactions(), int64_t(1));
        QCOMPARE(cache.physical_rows(0), 3);
        QCOMPARE(read_rows(cache, 0), model);

        // 3 live + 5 inserted = 8 slab rows; two removals leave 2 of 8 dead; inserting 3 more
        // needs 11 > 10 slab rows, so the insert compacts first.
        std::vector<Row> fresh;
        for (int i = 0; i < 5; ++i) fresh.push_back(make_row(rng, 3));
        write_rows(cache, 0, 1, fresh, false);
        model.insert(model.begin() + 1, fresh.begin(), fresh.end());
        cache.remove(0, 0);
        cache.remove(0, 4);
        model.erase(model.begin());
        model.erase(model.begin() + 4);
        QCOMPARE(cache.physical_rows(0), 8);
        QCOMPARE(cache.compactions(), int64_t(1));
        const std::vector<Row> three{make_row(rng, 3), make_row(rng, 3), make_row(rng, 3)};
        write_rows(cache, 0, 2, three, false);
        model.insert(model.begin() + 2, three.begin(), three.end());
        QCOMPARE(cache.compactions(), int64_t(2));
        QCOMPARE(cache.physical_rows(0), 9);  // the 6 live rows closed up, then the 3 new ones
        QCOMPARE(read_rows(cache, 0), model);
    }
};

QTEST_APPLESS_MAIN(TestLayoutParity)
#include "test_layout_parity.moc"
