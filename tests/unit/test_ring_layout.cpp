// The ring layout (docs/ARCHITECTURE.md §17): roll against a plainly written window of every
// row ever written, pointer and lut against roll bit for bit over thousands of random update
// streams, scales aligned with their rows, the offset, reset, parity with contiguous while the
// ring does not wrap, the ledger's RingOverwrite records, and sliding-window attention.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/cache/cache_error.h"
#include "core/cache/ring_layout.h"
#include "core/session/refused_setting.h"
#include "core/state/tick.h"
#include "state_fixture.h"

using namespace kvw;
using namespace kvw::test;

namespace {

constexpr int kDim = 8;  // two KV heads of 4
constexpr int kGroups = 2;

// Token t's K row: group g's values have the largest magnitude (t + 1) * (g + 1), so its scale
// says which token and group it belongs to. V is the same, negated.
std::vector<float> token_row(int64_t t) {
    std::vector<float> r(kDim);
    for (int i = 0; i < kDim; ++i) {
        const int g = i / (kDim / kGroups);
        const float amax = float(t % 97 + 1) * float(g + 1);
        r[size_t(i)] = (i % (kDim / kGroups) == 0) ? amax : amax * float(i % 3) / 4.0f;
    }
    return r;
}

// Writes tokens [first, first + n) after dropping, as the StateManager does, the oldest ring
// rows that do not leave room.
void ring_append(KvLayout& cache, int layer, int sinks, int64_t first, int n) {
    const int over = cache.rows(layer) + n - cache.capacity();
    if (over > 0) cache.remove_range(layer, std::min(sinks, cache.rows(layer)), over);
    std::vector<float> k, v;
    for (int i = 0; i < n; ++i) {
        const std::vector<float> r = token_row(first + i);
        k.insert(k.end(), r.begin(), r.end());
        for (float x : r) v.push_back(-x);
    }
    cache.append(layer, k.data(), v.data(), n);
}

// The logical rows of a layer as the engine reads them (view), stored bytes and scales.
std::vector<std::vector<uint8_t>> viewed_rows(const KvLayout& cache, int layer) {
    const LayerContext ctx = cache.view(layer);
    std::vector<std::vector<uint8_t>> out;
    for (int j = 0; j < ctx.rows; ++j) {
        std::vector<uint8_t> row;
        for (const KvRows& half : {ctx.k, ctx.v}) {
            const size_t p = ctx.physical_row(j);
            const auto* b = static_cast<const uint8_t*>(half.row(p, kDim));
            row.insert(row.end(), b, b + size_t(kDim) * size_t(kv_type_bytes(half.type)));
            if (half.scale) {
                const auto* s = reinterpret_cast<const uint8_t*>(half.scale + p * kGroups);
                row.insert(row.end(), s, s + kGroups * sizeof(float));
            }
        }
        out.push_back(std::move(row));
    }
    return out;
}

std::unique_ptr<RingLayout> make_ring(int layers, int T, KvStorage storage, RingOptions o) {
    o.checksum = true;
    return std::make_unique<RingLayout>(layers, kDim, T, storage, o);
}

void check_ring_guards(const RingLayout& ring, int layer) {
    QCOMPARE(QString::fromStdString(ring.check_pointer(layer)), QString());
    QCOMPARE(QString::fromStdString(ring.check_window(layer)), QString());
    QCOMPARE(QString::fromStdString(ring.check_checksum(layer)), QString());
}

}  // namespace

class TestRingLayout : public QObject {
    Q_OBJECT

private slots:
    // Roll after every update holds the sinks then the newest T - S tokens, the window a plain
    // list of every token written gives; the same for tokens_per_block 1 and 4, across wraps.
    void roll_matches_the_window_of_everything_written_data() {
        QTest::addColumn<int>("block_size");
        QTest::addColumn<int>("sinks");
        QTest::newRow("block 1") << 1 << 0;
        QTest::newRow("block 4") << 4 << 0;
        QTest::newRow("block 4, 2 sinks") << 4 << 2;
        QTest::newRow("block 3, 1 sink") << 3 << 1;
    }
    void roll_matches_the_window_of_everything_written() {
        QFETCH(int, block_size);
        QFETCH(int, sinks);
        const int T = 14;
        auto ring = make_ring(1, T, {}, {RingMode::Roll, sinks, block_size});
        std::vector<int64_t> written;  // every token, in order
        int64_t next = 0;
        for (int update = 0; update < 40; ++update) {
            const int n = update == 0 ? 5 : block_size;  // a prompt, then decode blocks
            ring_append(*ring, 0, sinks, next, n);
            for (int i = 0; i < n; ++i) written.push_back(next + i);
            next += n;
            std::vector<int64_t> window(written.begin(),
                                        written.begin() + std::min<size_t>(sinks, written.size()));
            const size_t keep = std::min<size_t>(written.size() - window.size(), size_t(T - sinks));
            window.insert(window.end(), written.end() - std::ptrdiff_t(keep), written.end());
            QCOMPARE(ring->rows(0), int(window.size()));
            std::vector<float> k(kDim), v(kDim);
            for (int j = 0; j < ring->rows(0); ++j) {
                ring->read_k(0, j, k.data());
                ring->read_v(0, j, v.data());
                const std::vector<float> want = token_row(window[size_t(j)]);
                for (int i = 0; i < kDim; ++i) {
                    QCOMPARE(k[size_t(i)], want[size_t(i)]);
                    QCOMPARE(v[size_t(i)], -want[size_t(i)]);
                }
                const LayerContext ctx = ring->view(0);
                QCOMPARE(std::memcmp(ctx.k.f32() + ctx.physical_row(j) * kDim, want.data(),
                                     kDim * sizeof(float)),
                         0);
            }
            QCOMPARE(ring->state(0).offset, int64_t(written.size()));
            check_ring_guards(*ring, 0);
        }
        QVERIFY(ring->wraps(0) > 0);
    }

    // Random streams of decode blocks, prompts, edits and resets on roll, pointer and lut: the
    // views agree bit for bit (scales included) after every update, the guard checks pass, the
    // offset grows by exactly the rows written, and every scale is its own row's.
    void pointer_and_lut_equal_roll_over_random_streams() {
        std::mt19937 rng(11);
        const KvStorage storages[] = {{KvType::F32, KvType::F32, kGroups},
                                      {KvType::BF16, KvType::Fp8E4M3, kGroups},
                                      {KvType::Int8, KvType::Fp8E4M3, kGroups}};
        int64_t wraps = 0, edits = 0;
        for (int stream = 0; stream < 1500; ++stream) {
            const int block_size = 1 + int(rng() % 4);
            const int sinks = int(rng() % 3);
            const int T = sinks + block_size * (1 + int(rng() % 6));
            const KvStorage storage = storages[rng() % 3];
            std::unique_ptr<RingLayout> rings[3];
            for (RingMode m : {RingMode::Roll, RingMode::Pointer, RingMode::Lut})
                rings[int(m)] = make_ring(2, T, storage, {m, sinks, block_size});
            int64_t next = 0;
            for (int update = 0; update < 24; ++update) {
                const int layer = int(rng() % 2);
                const int op = int(rng() % 10);
                const int rows = rings[0]->rows(layer);
                for (auto& ring : rings) {
                    const int64_t offset = ring->state(layer).offset;
                    std::mt19937 same(uint32_t(stream * 100 + update));  // one edit for all
                    if (op < 6) {                                        // a decode block
                        ring_append(*ring, layer, sinks, next, std::min(block_size, T - sinks));
                        QCOMPARE(ring->state(layer).offset - offset,
                                 int64_t(std::min(block_size, T - sinks)));
                    } else if (op == 6) {  // a prompt-like update of any length that fits
                        ring_append(*ring, layer, sinks, next,
                                    1 + int(same() % unsigned(T - sinks)));
                    } else if (op == 7 && rows > 0) {  // delete in the middle
                        ring->remove(layer, int(same() % unsigned(rows)));
                    } else if (op == 8 && rows < T) {  // insert in the middle
                        const std::vector<float> r = token_row(next + 50);
                        ring->insert(layer, int(same() % unsigned(rows + 1)), r.data(), r.data(),
                                     1);
                    } else if (op == 9 && update % 7 == 0) {
                        ring->reset();
                    }
                    QVERIFY(ring->state(layer).offset >= offset || op == 9);
                }
                edits += op >= 7;
                next += 13;
                for (int l = 0; l < 2; ++l) {
                    const auto want = viewed_rows(*rings[0], l);
                    for (int m = 1; m < 3; ++m) {
                        QCOMPARE(rings[m]->rows(l), rings[0]->rows(l));
                        if (viewed_rows(*rings[m], l) != want)
                            QFAIL(qPrintable(QString("stream %1 update %2 layer %3: %4 != roll")
                                                 .arg(stream)
                                                 .arg(update)
                                                 .arg(l)
                                                 .arg(ring_mode_name(RingMode(m)))));
                    }
                    for (auto& ring : rings) check_ring_guards(*ring, l);
                    check_scales(*rings[2], l);
                }
            }
            wraps += rings[1]->wraps(0) + rings[1]->wraps(1);
        }
        QVERIFY(wraps > 1000);
        QVERIFY(edits > 1000);
    }

    void reset_starts_again() {
        auto ring = make_ring(1, 6, {}, {RingMode::Pointer, 1, 1});
        for (int i = 0; i < 9; ++i) ring_append(*ring, 0, 1, i, 1);
        QVERIFY(ring->state(0).head != 0);
        ring->reset();
        QCOMPARE(ring->rows(0), 0);
        QCOMPARE(ring->state(0).offset, int64_t(0));
        QCOMPARE(ring->state(0).head, 0);
        QCOMPARE(ring->wraps(0), int64_t(0));
        ring_append(*ring, 0, 1, 100, 3);
        std::vector<float> k(kDim);
        ring->read_k(0, 2, k.data());
        QCOMPARE(k[0], token_row(102)[0]);
        check_ring_guards(*ring, 0);
    }

    void bad_options_are_refused() {
        QVERIFY_THROWS_EXCEPTION(RingError, RingLayout(1, kDim, 8, {}, {RingMode::Roll, 8, 1}));
        QVERIFY_THROWS_EXCEPTION(RingError, RingLayout(1, kDim, 8, {}, {RingMode::Roll, 0, 0}));
        QVERIFY_THROWS_EXCEPTION(RingError, RingLayout(1, kDim, 8, {}, {RingMode::Lut, 1, 2}));
        QVERIFY_THROWS_EXCEPTION(RingError,
                                 RingLayout(1, kDim, 1 << 16, {}, {RingMode::Lut, 0, 1}));
    }

    // Each refusal says which option it is about (a form shows it beside that field).
    void a_refusal_names_its_option() {
        const auto setting = [](const RingOptions& options, int capacity) -> std::string {
            try {
                check_ring_options(options, capacity);
            } catch (const RingError& e) {
                return refused_setting(e);
            }
            return "accepted";
        };
        QCOMPARE(setting({RingMode::Roll, 8, 1}, 8), std::string("ring-sinks"));
        QCOMPARE(setting({RingMode::Roll, 0, 0}, 8), std::string("tokens-per-frame"));
        QCOMPARE(setting({RingMode::Lut, 1, 2}, 8), std::string("tokens-per-frame"));
        QCOMPARE(setting({RingMode::Lut, 0, 1}, 1 << 16), std::string("tokens-per-frame"));
        QCOMPARE(setting({RingMode::Lut, 2, 2}, 8), std::string("accepted"));
    }

    // A ring that never wraps holds what contiguous holds after the same ticks of edits.
    void ring_without_wrap_equals_contiguous() {
        for (RingMode mode : {RingMode::Roll, RingMode::Pointer, RingMode::Lut}) {
            StateOptions base{64, RopePolicy::FinalIndex, true, CacheLayout::Contiguous};
            StateOptions ring = base;
            ring.layout = CacheLayout::Ring;
            ring.ring = {mode, 2, 2, true};
            StateManager a(tiny().engine, base), b(tiny().engine, ring);
            std::mt19937 rng(5);
            const std::vector<int32_t> prompt = random_tokens(rng, 9);
            a.append(prompt, EntryKind::Prompt, 0);
            b.append(prompt, EntryKind::Prompt, 0);
            for (int tick = 1; tick < 20; ++tick) {
                ActionList list;
                const int rows = a.rows(0);
                const int32_t token = random_tokens(rng, 1)[0];
                if (tick % 3 == 0)
                    list.push_back(Action{DeleteAction{int(rng() % unsigned(rows))}, {}});
                if (tick % 5 == 0)
                    list.push_back(Action{InsertAction{int(rng() % unsigned(rows)), {token}}, {}});
                list.push_back(Action{AddAction{token}, {}});
                QVERIFY(!apply_action_list(a, list, tick).rejected);
                QVERIFY(!apply_action_list(b, list, tick).rejected);
                QCOMPARE(b.state_hash(), a.state_hash());
                QCOMPARE(b.last_logits(), a.last_logits());
            }
            QVERIFY(all_passed(b.check_invariants()));
        }
    }

    // Ticks of edits (delete, insert, replace_pair) and adds on wrapped rings: pointer and lut
    // give roll's state hash and logits after every tick, under each RoPE policy, guard on.
    void edits_on_a_wrapped_ring_agree_across_modes() {
        for (RopePolicy policy :
             {RopePolicy::FinalIndex, RopePolicy::Reindex, RopePolicy::Original}) {
            std::vector<std::unique_ptr<StateManager>> states;
            for (RingMode mode : {RingMode::Roll, RingMode::Pointer, RingMode::Lut}) {
                StateOptions o{13, policy, true, CacheLayout::Ring};
                o.ring = {mode, 1, 3, true};
                o.k_type = KvType::BF16;
                o.v_type = KvType::Fp8E4M3;
                states.push_back(std::make_unique<StateManager>(tiny().engine, o));
            }
            std::mt19937 rng(17);
            const std::vector<int32_t> prompt = random_tokens(rng, 11);
            for (auto& s : states) s->append(prompt, EntryKind::Prompt, 0);
            for (int tick = 1; tick < 25; ++tick) {
                ActionList list;
                const int rows = states[0]->rows(0);
                const std::vector<int32_t> t = random_tokens(rng, 3);
                if (tick % 4 == 1)
                    list.push_back(Action{DeleteAction{1 + int(rng() % unsigned(rows - 1))}, {}});
                if (tick % 4 == 2 && rows > 4)
                    list.push_back(Action{ReplacePairAction{2, 3, {t[0]}}, {}});
                if (tick % 4 == 3 && rows < 13)
                    list.push_back(Action{InsertAction{int(rng() % unsigned(rows)), {t[1]}}, {}});
                for (int i = 0; i < 3; ++i) list.push_back(Action{AddAction{t[size_t(i)]}, {}});
                for (auto& s : states) {
                    const TickResult r = apply_action_list(*s, list, tick);
                    QVERIFY2(!r.rejected && !r.aborted,
                             qPrintable(QString::fromStdString(r.abort_reason)));
                }
                for (size_t m = 1; m < states.size(); ++m) {
                    QCOMPARE(states[m]->state_hash(), states[0]->state_hash());
                    QCOMPARE(states[m]->last_logits(), states[0]->last_logits());
                }
            }
            QVERIFY(states[1]->ring()->wraps(0) > 0);
            for (auto& s : states) QVERIFY(all_passed(s->check_invariants()));
        }
    }

    // Past the ring's size every append overwrites the oldest non-sink rows: the ledger says so
    // per layer, loses no record, and the rows left are the sinks and the newest tokens.
    void overwrite_is_recorded_per_layer() {
        for (RingMode mode : {RingMode::Roll, RingMode::Pointer, RingMode::Lut}) {
            StateOptions o{8, RopePolicy::FinalIndex, true, CacheLayout::Ring};
            o.ring = {mode, 2, 3, true};
            o.capacity = 11;  // 2 sinks + 9 ring rows, 3 blocks of 3
            StateManager s(tiny().engine, o);
            std::mt19937 rng(3);
            const std::vector<int32_t> prompt = random_tokens(rng, 7);
            s.append(prompt, EntryKind::Prompt, 0);
            std::vector<int64_t> ids(7);
            for (int i = 0; i < 7; ++i) ids[size_t(i)] = i;
            for (int tick = 1; tick <= 10; ++tick) {
                s.append(random_tokens(rng, 3), EntryKind::Generated, tick);
                QVERIFY(all_passed(s.check_invariants()));
            }
            const int64_t total = int64_t(s.ledger().size());
            QCOMPARE(total, int64_t(37));
            for (int l = 0; l < s.n_layers(); ++l) {
                QCOMPARE(s.rows(l), 11);
                const auto& map = s.layer_map(l).pos2ledger;
                QCOMPARE(map[0], int64_t(0));
                QCOMPARE(map[1], int64_t(1));
                for (int r = 2; r < 11; ++r) QCOMPARE(map[size_t(r)], int64_t(total - 11 + r));
                int64_t live = 0, overwritten = 0;
                for (const LedgerEntry& e : s.ledger().entries()) {
                    if (e.status[size_t(l)] == RowStatus::Live)
                        ++live;
                    else if (e.removal[size_t(l)].cause.reason == RemovalReason::RingOverwrite)
                        ++overwritten;
                }
                QCOMPARE(live, int64_t(11));
                QCOMPARE(overwritten, total - 11);
            }
            QCOMPARE(QString(removal_reason_name(RemovalReason::RingOverwrite)),
                     QString("ring_overwrite"));
            QCOMPARE(parse_removal_reason("ring_overwrite"), RemovalReason::RingOverwrite);
            // More rows than the ring's T - S slots cannot make room: refused, nothing changed.
            const uint64_t hash = s.state_hash();
            QVERIFY_THROWS_EXCEPTION(CapacityExceeded,
                                     s.append(random_tokens(rng, 10), EntryKind::Generated, 11));
            QCOMPARE(s.state_hash(), hash);
            // An insert in the middle of a full ring is refused like any overfull insert.
            QVERIFY_THROWS_EXCEPTION(
                CapacityExceeded, s.insert({}, 4, random_tokens(rng, 1), EntryKind::Inserted, 11));
        }
    }

    // Sliding-window attention: the ring's logits equal those of a contiguous cache from which
    // the oldest non-sink rows are deleted by hand before each append; and layer 0's rows (which
    // depend only on the token and its phase) equal a fresh forward over the kept tokens.
    void ring_is_sliding_window_attention() {
        for (RingMode mode : {RingMode::Roll, RingMode::Pointer, RingMode::Lut}) {
            StateOptions ro{10, RopePolicy::FinalIndex, true, CacheLayout::Ring};
            ro.ring = {mode, 1, 1, false};
            StateOptions co{10, RopePolicy::FinalIndex, true, CacheLayout::Contiguous};
            StateManager ring(tiny().engine, ro), plain(tiny().engine, co);
            std::mt19937 rng(9);
            for (int tick = 0; tick < 30; ++tick) {
                const std::vector<int32_t> t = random_tokens(rng, tick == 0 ? 4 : 1);
                if (plain.rows(0) + int(t.size()) > 10) plain.remove({}, 1, tick);
                const auto& a = ring.append(t, EntryKind::Generated, tick);
                const auto& b = plain.append(t, EntryKind::Generated, tick);
                for (size_t i = 0; i < a.size(); ++i) QVERIFY(std::fabs(a[i] - b[i]) <= 1e-5f);
            }
            const LayerMap& map = ring.layer_map(0);
            std::vector<Item> items;
            for (int64_t id : map.pos2ledger)
                items.push_back(Item::of_token(ring.ledger().at(id).token_id));
            std::vector<LayerContext> none(size_t(ring.n_layers()));
            const ForwardOutput fresh =
                tiny().engine.forward(items, map.rope_pos, none, ForwardOptions{false, false});
            const std::vector<float> fresh_k = fresh.k.host(0);
            const int d = ring.cache().kv_dim();
            std::vector<float> k(static_cast<size_t>(d));
            for (int r = 0; r < map.rows(); ++r) {
                ring.cache().read_k(0, r, k.data());
                for (int i = 0; i < d; ++i)
                    QVERIFY(std::fabs(k[size_t(i)] - fresh_k[size_t(r * d + i)]) <= 1e-5f);
            }
        }
    }

private:
    // Lut's view of every row carries that row's own scales: amax / max code of its token and
    // group, which differs from every other row's.
    void check_scales(const RingLayout& ring, int layer) {
        const LayerContext ctx = ring.view(layer);
        std::vector<float> k(kDim);
        for (const KvRows& half : {ctx.k, ctx.v}) {
            if (!half.scale) continue;
            const float code_max = half.type == KvType::Int8 ? 127.0f : 448.0f;
            for (int j = 0; j < ctx.rows; ++j) {
                ring.read_k(layer, j, k.data());  // decoded: its amax per group, near enough
                for (int g = 0; g < kGroups; ++g) {
                    const float amax = std::fabs(k[size_t(g * (kDim / kGroups))]);
                    const float scale = half.scale[ctx.physical_row(j) * kGroups + size_t(g)];
                    QVERIFY2(std::fabs(scale * code_max - amax) <= 0.07f * amax,
                             qPrintable(QString("row %1 group %2: scale %3 for amax %4")
                                            .arg(j)
                                            .arg(g)
                                            .arg(scale)
                                            .arg(amax)));
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestRingLayout)
#include "test_ring_layout.moc"
