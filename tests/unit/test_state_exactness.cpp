// Numeric alignment after Step 4 edits: rows before an edit are untouched, rows after it are
// reported stale, recompute_suffix brings the cache back to a fresh pass over the mirror, and
// re-rotation (Reindex) equals RoPE applied at the new position to the un-rotated key.
#include <QtTest>

#include "reference_rope.h"

#include <cmath>
#include <vector>

#include "core/math/rope.h"
#include "state_fixture.h"

using namespace kvw;
using namespace kvw::test;

Q_DECLARE_METATYPE(kvw::RopePolicy)

namespace {}  // namespace

class TestStateExactness : public QObject {
    Q_OBJECT
private slots:
    // Every test once per cache layout (state_fixture.h).
    void initTestCase_data() { add_layout_rows(); }
    void init() { use_layout_row(); }

    void edit_then_suffix_recompute_data() {
        QTest::addColumn<RopePolicy>("policy");
        QTest::newRow("final_index") << RopePolicy::FinalIndex;
        QTest::newRow("reindex") << RopePolicy::Reindex;
        QTest::newRow("original") << RopePolicy::Original;
    }

    void edit_then_suffix_recompute() {
        QFETCH(RopePolicy, policy);
        std::mt19937 rng(11);
        StateManager s = make_state(32, policy);
        s.append(random_tokens(rng, 12), EntryKind::Prompt, 0);
        QCOMPARE(max_drift(s.measure_drift()), 0.0f);

        const int p1 = 5;
        s.replace_pair({}, p1, p1 + 1, random_tokens(rng, 3), 1);  // rows 5..7 new, 8.. moved
        const DriftReport d = s.measure_drift(1e-5f);
        for (int l = 0; l < s.n_layers(); ++l) {
            const LayerDrift& ld = d.layers[size_t(l)];
            QCOMPARE(int(ld.k.size()), 13);
            for (int r = 0; r < p1; ++r) {
                QCOMPARE(ld.k[size_t(r)], 0.0f);
                QCOMPARE(ld.v[size_t(r)], 0.0f);
            }
            for (int r = p1; r < p1 + 3; ++r) QVERIFY(!ld.stale(r));
        }
        // Layer 0's K/V depend only on token and phase, so it stays aligned; every later layer
        // saw a different context for the moved rows, which are therefore stale there.
        for (int l = 1; l < s.n_layers(); ++l) {
            QCOMPARE(d.layers[size_t(l)].first_stale_row, p1 + 3);
            for (int r = p1 + 3; r < 13; ++r) QVERIFY(d.layers[size_t(l)].stale(r));
        }
        QCOMPARE(d.first_diverging_layer, 1);

        s.recompute_suffix(p1);
        QVERIFY(max_drift(s.measure_drift()) <= 1e-5f);
        const uint64_t after_suffix = s.state_hash();
        s.rebuild_from_mirror();
        QCOMPARE(s.state_hash(), after_suffix);  // suffix recompute == full rebuild, bitwise
        QVERIFY(all_passed(s.check_invariants()));
    }

    // A layer-restricted delete gives layers different token lists; rebuild computes each list.
    void per_layer_lists_rebuild() {
        std::mt19937 rng(12);
        StateManager s = make_state(32);
        s.append(random_tokens(rng, 10), EntryKind::Prompt, 0);
        s.remove({2, 3}, 4, 1);
        QCOMPARE(s.rows(0), 10);
        QCOMPARE(s.rows(2), 9);
        QVERIFY(all_passed(s.check_invariants()));
        s.recompute_suffix(4);
        const uint64_t h = s.state_hash();
        QVERIFY(max_drift(s.measure_drift()) <= 1e-5f);
        s.rebuild_from_mirror();
        QCOMPARE(s.state_hash(), h);
    }

    // rope_rerotate(rope(x, p), delta) == rope(x, p + delta) in float64, per pair.
    void rerotation_equals_rope_at_new_position() {
        std::mt19937 rng(13);
        std::normal_distribution<float> nd;
        const float theta = 10000.0f;
        for (RopeLayout layout : {RopeLayout::Interleaved, RopeLayout::HalfSplit}) {
            for (auto [p, delta] : {std::pair{7, -3}, {100, 37}, {1500, -1499}, {3, 2040}}) {
                const int d = 64;
                std::vector<float> x(static_cast<size_t>(d));
                for (float& a : x) a = nd(rng);
                std::vector<double> expect(x.begin(), x.end());
                kvw::test::reference_rope(expect.data(), d, p + delta, theta, layout);
                std::vector<float> got = x;
                rope_rotate(got.data(), d, p, theta, layout);
                rope_rerotate(got.data(), d, delta, theta, layout);
                double norm = 0.0, err = 0.0;
                for (int i = 0; i < d; ++i) {
                    norm += expect[size_t(i)] * expect[size_t(i)];
                    err = std::max(err, std::fabs(got[size_t(i)] - expect[size_t(i)]));
                }
                QVERIFY2(err / std::sqrt(norm) <= 1e-6, qPrintable(QString::number(err)));
            }
        }
    }

    // Under Reindex, a removal K-shifts later rows; layer 0's K depends only on token and
    // position, so it must equal a fresh pass of the engine over the remaining tokens.
    void reindex_k_shift_matches_fresh_layer0() {
        std::mt19937 rng(14);
        StateManager s = make_state(32, RopePolicy::Reindex);
        std::vector<int32_t> toks = random_tokens(rng, 9);
        s.append(toks, EntryKind::Prompt, 0);
        s.remove({}, 2, 1);
        toks.erase(toks.begin() + 2);
        std::vector<Item> items;
        std::vector<int32_t> pos;
        for (size_t i = 0; i < toks.size(); ++i) {
            items.push_back(Item::of_token(toks[i]));
            pos.push_back(int32_t(i));
        }
        const std::vector<LayerContext> empty(size_t(s.n_layers()));
        const ForwardOutput ref = tiny().engine.forward(items, pos, empty, {false, false});
        const std::vector<float> ref_k = ref.k.host(0);
        const int kv = s.cache().kv_dim();
        for (int r = 0; r < int(toks.size()); ++r) {
            QCOMPARE(s.layer_map(0).rope_pos[size_t(r)], r);
            std::vector<float> k(static_cast<size_t>(kv));
            s.cache().read_k(0, r, k.data());
            double err = 0.0, norm = 0.0;
            for (int i = 0; i < kv; ++i) {
                const double e = ref_k[size_t(r * kv + i)];
                err = std::max(err, std::fabs(k[i] - e));
                norm += e * e;
            }
            QVERIFY2(err / std::sqrt(norm) <= 1e-6,
                     qPrintable(QString("row %1: %2").arg(r).arg(err)));
        }
    }
};

QTEST_APPLESS_MAIN(TestStateExactness)
#include "test_state_exactness.moc"
