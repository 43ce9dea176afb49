// The incremental state digest and invariants (docs/ARCHITECTURE.md §6.1) against their
// from-scratch references, over several chunks of rows and records: a changed byte of any row
// changes the digest, a desync at any row of any chunk is caught, and the maps' journal puts
// every map back.
#include <QtTest>

#include <cstring>
#include <random>

#include "core/backend/backend.h"
#include "core/cache/kv_layout.h"
#include "core/mirror/chunk_revisions.h"
#include "core/mirror/layer_map.h"
#include "core/mirror/ledger.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/synthetic_model.h"
#include "core/state/invariant_summary.h"
#include "core/state/state_digest.h"
#include "core/state/state_manager.h"

using namespace kvw;

Q_DECLARE_METATYPE(kvw::DigestForm)

namespace {

constexpr int kLayers = 3;
constexpr int kKvDim = 4;
constexpr int kChunk = LayerMaps::kChunkRows;
constexpr int kRows = 2 * kChunk + 700;  // three Frame chunks of rows, nine of records
constexpr DigestForm kStreams{};         // what sessions hash with

// Every form of the digest a session hashes with: the default, and those older traces carry.
void add_form_rows() {
    QTest::addColumn<DigestForm>("form");
    QTest::newRow("block streams") << kStreams;
    QTest::newRow("block heads") << DigestForm{BrightnessInDigest::Sum, BlockDigest::Head};
    QTest::newRow("block heads, brightness bytes")
        << DigestForm{BrightnessInDigest::Bytes, BlockDigest::Head};
}

// A ledger, maps and a cache of kRows rows per layer, filled directly (no engine): row r holds
// record r with phase r, and K / V values that differ per row and layer.
struct Parts {
    Ledger ledger{kLayers};
    LayerMaps maps{kLayers};
    std::unique_ptr<KvLayout> cache =
        make_kv_layout(CacheLayout::Contiguous, kLayers, kKvDim, kRows + kRevisionBlockRows);

    Parts() {
        for (int r = 0; r < kRows; ++r) ledger.add(EntryKind::Prompt, r % 50, "p", 0);
        for (int l = 0; l < kLayers; ++l) {
            std::vector<int64_t> ids;
            std::vector<int32_t> phases;
            std::vector<float> k, v;
            for (int r = 0; r < kRows; ++r) {
                ids.push_back(r);
                phases.push_back(r);
                ledger.mark_live(r, l);
                for (int d = 0; d < kKvDim; ++d) {
                    k.push_back(float(r) * 0.25f + float(d + l));
                    v.push_back(-float(r) * 0.5f - float(d));
                }
            }
            maps.edit(size_t(l), 0).insert(0, ids, phases);
            cache->append(l, k.data(), v.data(), kRows);
        }
    }
    Parts(const Parts& other)
        : ledger(other.ledger), maps(other.maps), cache(other.cache->clone()) {}
    StateParts state() const { return {RopePolicy::FinalIndex, ledger, maps, *cache}; }
};

// A record appended to the ledger, live in every layer, and a row holding it appended to each
// layer's map (the cache left alone: what the invariants' summary reads).
void append_live_record(Parts& p, int32_t token) {
    const int64_t id = p.ledger.add(EntryKind::Generated, token, "g", 1);
    for (int l = 0; l < kLayers; ++l) {
        const int row = p.maps[size_t(l)].rows();
        p.ledger.mark_live(id, l);
        p.maps.edit(size_t(l), row)
            .insert(row, std::vector<int64_t>{id}, std::vector<int32_t>{row});
    }
}

// The first block renewed since `since`, as the digest and the invariants' summary ask it.
size_t first_block_renewed(const ChunkRevisions& revisions, uint64_t since) {
    return ChunkRevisions::first_block(revisions.rows_renewed_since(since));
}

// A digest kept over changes of `parts`, each of which must give a digest equal to the
// from-scratch one and not seen before.
struct DigestsSeen {
    Parts& parts;
    StateDigest digest;
    std::vector<uint64_t> digests{digest.update(parts.state(), kStreams)};

    explicit DigestsSeen(Parts& p) : parts(p) {}
    void expect_new(const QString& what) {
        const uint64_t now = digest.update(parts.state(), kStreams);
        QVERIFY2(std::find(digests.begin(), digests.end(), now) == digests.end(), qPrintable(what));
        QCOMPARE(now, StateDigest::from_scratch(parts.state(), kStreams));
        digests.push_back(now);
    }
};

std::shared_ptr<const Model> thin_model(int layers) {
    SyntheticSpec spec = synthetic_spec("thin-22");
    spec.config.n_layers = layers;
    return load_gguf_model(synthetic_source(spec));
}

}  // namespace

class TestStateDigest : public QObject {
    Q_OBJECT

private slots:
    // One bit of one stored K value, at rows in every chunk (its first and last row among them)
    // and every layer: the remembered digest changes with it and equals the from-scratch one,
    // and the value put back gives the first digest again.
    void a_changed_byte_of_any_row_changes_the_digest_data() { add_form_rows(); }
    void a_changed_byte_of_any_row_changes_the_digest() {
        QFETCH(DigestForm, form);
        Parts p;
        StateDigest digest;
        const uint64_t original = digest.update(p.state(), form);
        QCOMPARE(original, StateDigest::from_scratch(p.state(), form));
        std::mt19937 rng(7);
        std::vector<int> rows = {
            0,        kRevisionBlockRows - 1, kRevisionBlockRows, kChunk - 1, kChunk, 2 * kChunk,
            kRows - 1};
        for (int i = 0; i < 6; ++i) rows.push_back(int(rng() % kRows));
        for (int l = 0; l < kLayers; ++l)
            for (int row : rows) {
                std::vector<float> k(kKvDim), v(kKvDim);
                p.cache->read_k(l, row, k.data());
                p.cache->read_v(l, row, v.data());
                std::vector<float> changed = k;
                uint32_t bits;
                std::memcpy(&bits, &changed[1], 4);
                bits ^= 1u;  // the lowest bit: one byte of the stored row differs
                std::memcpy(&changed[1], &bits, 4);
                p.cache->overwrite(l, row, changed.data(), v.data(), 1);
                const uint64_t after = digest.update(p.state(), form);
                QVERIFY2(after != original, qPrintable(QString("layer %1 row %2").arg(l).arg(row)));
                QCOMPARE(after, StateDigest::from_scratch(p.state(), form));
                p.cache->overwrite(l, row, k.data(), v.data(), 1);
                QCOMPARE(digest.update(p.state(), form), original);
            }
    }

    // The maps and the ledger count as much as the rows: a changed phase, a record's standing,
    // a removed row and a brightness each change the digest, which stays equal to the
    // from-scratch one, in every form.
    void maps_and_ledger_changes_change_the_digest_data() { add_form_rows(); }
    void maps_and_ledger_changes_change_the_digest() {
        QFETCH(DigestForm, form);
        Parts p;
        StateDigest digest;
        uint64_t last = digest.update(p.state(), form);
        const auto expect_new = [&](const char* what) {
            const uint64_t now = digest.update(p.state(), form);
            QVERIFY2(now != last, what);
            QCOMPARE(now, StateDigest::from_scratch(p.state(), form));
            last = now;
        };
        p.maps.edit(1, kChunk + 3).rope_pos[size_t(kChunk + 3)] += 1;
        expect_new("a phase");
        p.ledger.mark_removed(5000, 2, 1);
        expect_new("a record's standing");
        p.maps.edit(2, 5000).remove(5000);
        p.cache->remove(2, 5000);
        expect_new("a removed row");
        p.ledger.set_brightness(0, std::vector<int64_t>{7000}, std::vector<float>{0.5f});
        expect_new("a brightness");
        p.ledger.set_brightness(2, std::vector<int64_t>{kRows - 1}, std::vector<float>{1e-30f});
        expect_new("a brightness in the last chunk of another layer");
    }

    // The last chunk of records digested on from the records a change left alone: records
    // appended one at a time (each marked live), a record earlier in the same chunk changed,
    // and the ledger put back to an older copy of itself whose records the digest read in
    // another standing. After each, the digest equals the from-scratch one, and every change
    // gives a digest not seen before.
    void a_chunk_is_digested_on_from_its_unchanged_records() {
        Parts p;
        DigestsSeen seen(p);
        StateDigest& digest = seen.digest;
        const auto expect_new = [&](const QString& what) { seen.expect_new(what); };
        const Ledger before = p.ledger;
        for (int i = 0; i < 5; ++i) {
            const int64_t id = p.ledger.add(EntryKind::Generated, 9 + i, "g", 1 + i);
            expect_new(QString("record %1 added").arg(id));
            p.ledger.mark_live(id, i % kLayers);
            expect_new(QString("record %1 live").arg(id));
        }
        const int64_t last_chunk_first =
            (p.ledger.size() - 1) / Ledger::kChunkRecords * Ledger::kChunkRecords;
        p.ledger.mark_removed(last_chunk_first + 1, 1, 9);  // before the records appended
        expect_new("an earlier record of the chunk removed");
        p.ledger.add(EntryKind::Generated, 3, "h", 10);
        expect_new("a record after it");
        p.ledger = before;  // older: the same ids, other standing
        QCOMPARE(digest.update(p.state(), kStreams), seen.digests.front());
        QCOMPARE(digest.update(p.state(), kStreams),
                 StateDigest::from_scratch(p.state(), kStreams));
        p.ledger.add(EntryKind::Generated, 11, "i", 1);
        expect_new("a record added to the older ledger");
    }

    // A block whose rows only grew is digested on from the rows it had (BlockDigest::Streams),
    // and read from its first row again when one it had changed: rows appended one at a time,
    // with between them an earlier row of the same block rewritten (its K / V, its phase, its
    // record), removed, a last row dropped, rows appended into a new block, and the digest moved
    // to a copy and back. After each, the digest equals the from-scratch one and is new.
    void a_block_is_digested_on_from_its_unchanged_rows() {
        Parts p;
        DigestsSeen seen(p);
        StateDigest& digest = seen.digest;
        const auto expect_new = [&](const QString& what) { seen.expect_new(what); };
        float value = 1000.0f;  // every appended row its own values
        const auto append_row = [&](Parts& parts, int layer) {
            const int row = parts.maps[size_t(layer)].rows();
            value += 1.0f;
            const std::vector<float> k(kKvDim, value), v(kKvDim, -value);
            parts.cache->append(layer, k.data(), v.data(), 1);
            parts.maps.edit(size_t(layer), row)
                .insert(row, std::vector<int64_t>{row}, std::vector<int32_t>{row});
        };
        for (int i = 0; i < 5; ++i) {
            append_row(p, i % 2);
            expect_new(QString("row appended to layer %1").arg(i % 2));
        }
        const int earlier = kRows - 2;  // in the last block, before the appended rows
        const std::vector<float> k(kKvDim, -3.0f), v(kKvDim, 4.0f);
        p.cache->overwrite(1, earlier, k.data(), v.data(), 1);
        expect_new("an earlier row's K and V rewritten");
        append_row(p, 1);
        expect_new("a row appended after it");
        p.maps.edit(1, earlier).rope_pos[size_t(earlier)] += 1;
        expect_new("an earlier row's phase");
        p.maps.edit(0, earlier).pos2ledger[size_t(earlier)] = 5;
        expect_new("an earlier row's record");
        p.maps.edit(2, earlier).remove(earlier);
        p.cache->remove(2, earlier);
        expect_new("an earlier row removed");
        const int last = p.maps[0].rows() - 1;
        p.maps.edit(0, last).remove(last);
        p.cache->truncate(0, last);
        expect_new("the last row dropped");
        append_row(p, 0);
        expect_new("a row appended in its place");
        while (p.maps[1].rows() % kRevisionBlockRows != 2) append_row(p, 1);  // into a new block
        expect_new("rows appended into a new block");
        append_row(p, 1);
        expect_new("a row appended to the new block");

        Parts copy = p;  // the digest moved to a copy and back
        QCOMPARE(digest.update(copy.state(), kStreams), seen.digests.back());
        append_row(copy, 2);
        QCOMPARE(digest.update(copy.state(), kStreams),
                 StateDigest::from_scratch(copy.state(), kStreams));
        p.cache->overwrite(2, kRows - 3, k.data(), v.data(), 1);
        expect_new("back on the first parts, an earlier row rewritten");
    }

    // The invariants' summary counts a chunk of records, and a block of rows, on from what a
    // change left alone: records appended one at a time, each live with a row at the end of
    // every layer, hold; a record earlier in the same chunk that leaves one layer while its
    // row stays, a row earlier in the same block pointed at another record, and a row there
    // given a phase no policy allows are each caught (counting on from the old count would
    // miss them), and put back it holds again.
    void the_invariants_count_on_from_unchanged_records_and_rows() {
        Parts p;
        InvariantSummary summary;
        const auto holds = [&] {
            return summary.rows_hold(p.ledger, p.maps, RopePolicy::FinalIndex, kRows + 16);
        };
        QVERIFY(holds());
        for (int i = 0; i < 4; ++i) {
            append_live_record(p, 7 + i);
            QVERIFY(holds());
        }
        const int64_t record =
            (p.ledger.size() - 1) / Ledger::kChunkRecords * Ledger::kChunkRecords + 1;
        p.ledger.mark_removed(record, 1, 9);
        QVERIFY(!holds());
        p.ledger.mark_live(record, 1);
        QVERIFY(holds());
        const size_t row = size_t(kRows - 2);  // in the last block, before the appended rows
        const int64_t id = p.maps[1].pos2ledger[row];
        p.maps.edit(1, int(row)).pos2ledger[row] = 3;  // record 3 twice, `id` in none
        QVERIFY(!holds());
        p.maps.edit(1, int(row)).pos2ledger[row] = id;
        QVERIFY(holds());
        p.maps.edit(2, int(row)).rope_pos[row] = -7;
        QVERIFY(!holds());
        p.maps.edit(2, int(row)).rope_pos[row] = int32_t(row);
        QVERIFY(holds());
    }

    // The ledger's brightness sum, kept by every write, against the sum over every value
    // written plainly here: after random writes in every layer, after one bit of one value
    // changed, and after two records exchanged their values (each changes the sum).
    void the_brightness_sum_follows_every_write() {
        Parts p;
        std::mt19937 rng(11);
        std::uniform_real_distribution<float> value(0.0f, 100.0f);
        const auto plain_sum = [&](int layer) {
            uint64_t sum = 0;
            for (int64_t id = 0; id < p.ledger.size(); ++id) {
                uint32_t bits;
                const float b = p.ledger.brightness(id, layer);
                std::memcpy(&bits, &b, 4);
                sum += (2 * uint64_t(id) + 1) * uint64_t(bits);
            }
            return sum;
        };
        for (int round = 0; round < 20; ++round)
            for (int l = 0; l < kLayers; ++l) {
                std::vector<int64_t> ids;
                std::vector<float> values;
                for (int i = 0; i < 300; ++i) {
                    ids.push_back(int64_t(rng() % uint32_t(kRows)));
                    values.push_back(value(rng));
                }
                p.ledger.set_brightness(l, ids, values);
                QCOMPARE(p.ledger.brightness_sum(l), plain_sum(l));
                QCOMPARE(p.ledger.brightness_sum_from_scratch(l), plain_sum(l));
            }
        const std::vector<int64_t> pair = {17, kRows - 3};
        p.ledger.set_brightness(2, pair, std::vector<float>{1.5f, 2.5f});
        const Ledger before = p.ledger;
        const float b = p.ledger.brightness(4321, 1);
        uint32_t bits;
        std::memcpy(&bits, &b, 4);
        bits ^= 1u << 31;
        float flipped;
        std::memcpy(&flipped, &bits, 4);
        p.ledger.set_brightness(1, std::vector<int64_t>{4321}, std::vector<float>{flipped});
        QVERIFY(p.ledger.brightness_sum(1) != before.brightness_sum(1));
        QCOMPARE(p.ledger.brightness_sum(0), before.brightness_sum(0));
        p.ledger = before;
        const std::vector<float> exchanged = {p.ledger.brightness(pair[1], 2),
                                              p.ledger.brightness(pair[0], 2)};
        p.ledger.set_brightness(2, pair, exchanged);
        QVERIFY(p.ledger.brightness_sum(2) != before.brightness_sum(2));
        QCOMPARE(p.ledger.brightness_sum(2), plain_sum(2));
    }

    // A tick's pass over every row (update_brightness with the values before kept) that meets
    // an unknown id after it wrote others, one of them twice: it throws, and every value and
    // the layer's sum are as they were.
    void an_unknown_id_in_a_pass_writes_nothing() {
        Parts p;
        p.ledger.set_brightness(1, std::vector<int64_t>{3, 2000, kRows - 1, 5},
                                std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f});
        const Ledger before = p.ledger;
        for (const int64_t bad : {int64_t(kRows), int64_t(-1)}) {
            const std::vector<int64_t> ids = {3, 2000, 3, kRows - 1, bad, 5};
            std::vector<float> old;
            QVERIFY_THROWS_EXCEPTION(
                std::out_of_range,
                p.ledger.update_brightness(
                    1, ids, [](size_t i, float) { return 7.0f + float(i); }, &old));
            QCOMPARE(p.ledger.brightness_sum(1), before.brightness_sum(1));
            for (const int64_t id : {int64_t(3), int64_t(2000), int64_t(kRows - 1), int64_t(5)})
                QCOMPARE(p.ledger.brightness(id, 1), before.brightness(id, 1));
            QCOMPARE(p.ledger.brightness_sum_from_scratch(1), before.brightness_sum(1));
        }
    }

    // A desync (a map row pointing at another record) at rows of every chunk and layer: the
    // incremental check reports exactly what the full check does, and fails; before it, both
    // pass. The digest follows the desync.
    void a_desync_at_any_row_of_any_chunk_is_caught() {
        const auto model = thin_model(kLayers);
        const std::unique_ptr<Backend> backend = make_cpu_backend(1);
        const Transformer engine(model, *backend);
        StateManager state(engine, StateOptions{kRows + 16});
        std::vector<int32_t> tokens(static_cast<size_t>(kRows));
        for (int r = 0; r < kRows; ++r) tokens[size_t(r)] = 3 + (r * 7919) % 2000;
        state.append(tokens, EntryKind::Prompt, 0);
        QCOMPARE(state.check_invariants(), state.check_invariants_full());
        for (const InvariantResult& r : state.check_invariants()) QVERIFY(r.passed);
        for (int l = 0; l < kLayers; ++l)
            for (int row : {0, kChunk - 1, kChunk, 2 * kChunk + 5, kRows - 1}) {
                StateManager copy(state, &engine);
                const uint64_t before = copy.state_hash();
                QCOMPARE(copy.check_invariants(), state.check_invariants());
                copy.debug_desync_row(l, row);
                const std::vector<InvariantResult> incremental = copy.check_invariants();
                QCOMPARE(incremental, copy.check_invariants_full());
                QVERIFY(std::any_of(incremental.begin(), incremental.end(),
                                    [](const InvariantResult& r) { return !r.passed; }));
                QVERIFY(copy.state_hash() != before);
                QCOMPARE(copy.state_hash(), copy.state_hash_from_scratch());
            }
    }

    // The first block renewed (ChunkRevisions::first_block of rows_renewed_since) against every
    // block's revision written down here: after random
    // appends, removals and rewrites, every block before the answer kept the revision it had
    // when the reader looked (the promise the digest and the invariants skip blocks on), for
    // readers of each age; a reader older than the renewals kept, or of rows that do not
    // descend from what it saw (a copy taken before, a new object), is told to look at all.
    void renewals_name_the_first_block_that_moved() {
        std::mt19937 rng(11);
        ChunkRevisions revisions;
        revisions.renew_from(0);
        revisions.renew_rows(0, 40 * kRevisionBlockRows);  // 40 blocks
        struct Reader {
            uint64_t since;
            std::vector<uint64_t> blocks;
        };
        const auto look = [&] {
            Reader r{revisions.latest(), {}};
            for (size_t b = 0; b < 48; ++b) r.blocks.push_back(revisions.block(b));
            return r;
        };
        std::vector<Reader> readers{look()};
        const ChunkRevisions before_any = revisions;
        QCOMPARE(first_block_renewed(revisions, readers[0].since), ChunkRevisions::kNoneRenewed);
        int checked_some = 0;
        for (int step = 0; step < 60; ++step) {
            const int row = int(rng() % (40 * kRevisionBlockRows));
            if (rng() % 2)
                revisions.renew_from(row);
            else
                revisions.renew_rows(row, row + 1 + int(rng() % 700));
            readers.push_back(look());
            for (size_t age = 1; age < readers.size(); ++age) {
                const Reader& r = readers[readers.size() - 1 - age];
                const size_t first = first_block_renewed(revisions, r.since);
                if (age >= 32) QCOMPARE(first, size_t(0));  // older than the renewals kept
                QVERIFY(first != ChunkRevisions::kNoneRenewed);
                for (size_t b = 0; b < std::min<size_t>(first, 48); ++b, ++checked_some)
                    QCOMPARE(revisions.block(b), r.blocks[b]);
            }
        }
        QVERIFY(checked_some > 1000);     // the answers are not all 0
        ChunkRevisions copy = revisions;  // descends from every reader of `revisions`
        QCOMPARE(first_block_renewed(copy, readers.back().since), ChunkRevisions::kNoneRenewed);
        copy.renew_from(5 * kRevisionBlockRows);
        QCOMPARE(first_block_renewed(copy, readers.back().since), size_t(5));
        ChunkRevisions older = before_any;  // does not descend from the later readers
        older.renew_from(39 * kRevisionBlockRows);
        QCOMPARE(first_block_renewed(older, readers.back().since), size_t(0));
        QCOMPARE(first_block_renewed(ChunkRevisions(), readers.back().since), size_t(0));
    }

    // The digest and the invariants skip the blocks no renewal reached since they last read,
    // and no more: a row rewritten in the first block and then more renewals of the last block
    // than are kept, and a digest moved on to an older copy of the parts whose own rows changed
    // after it was taken, and a capacity changed with no row renewed. Each digest equals the
    // from-scratch one; each broken row is caught.
    void the_memos_skip_only_blocks_no_renewal_reached_data() { add_form_rows(); }
    void the_memos_skip_only_blocks_no_renewal_reached() {
        QFETCH(DigestForm, form);
        Parts p;
        StateDigest digest;
        InvariantSummary summary;
        (void)digest.update(p.state(), form);
        QVERIFY(summary.rows_hold(p.ledger, p.maps, RopePolicy::FinalIndex, kRows + 16));
        Parts older;
        std::vector<float> k(kKvDim, 3.0f), v(kKvDim, -1.0f);
        p.cache->overwrite(1, 3, k.data(), v.data(), 1);
        p.maps.edit(1, 3).rope_pos[3] = -7;  // a phase no policy allows
        for (int i = 0; i < 40; ++i) {       // renewals of the last block only, more than are kept
            p.cache->overwrite(1, kRows - 1, k.data(), v.data(), 1);
            (void)p.maps.edit(1, kRows - 1);
        }
        p.cache->append(1, k.data(), v.data(), 1);
        QCOMPARE(digest.update(p.state(), form), StateDigest::from_scratch(p.state(), form));
        QVERIFY(!summary.rows_hold(p.ledger, p.maps, RopePolicy::FinalIndex, kRows + 16));

        QVERIFY(summary.rows_hold(older.ledger, older.maps, RopePolicy::FinalIndex, kRows + 16));
        // no row renewed, but a capacity the later phases exceed: every block is checked again
        QVERIFY(!summary.rows_hold(older.ledger, older.maps, RopePolicy::FinalIndex, 100));
        QVERIFY(summary.rows_hold(older.ledger, older.maps, RopePolicy::FinalIndex, kRows + 16));
        (void)digest.update(older.state(), form);
        Parts copy = older;  // what the digest read, then changed in its first block
        copy.cache->overwrite(2, 1, k.data(), v.data(), 1);
        copy.maps.edit(2, 1).rope_pos[1] = -7;
        QCOMPARE(digest.update(copy.state(), form), StateDigest::from_scratch(copy.state(), form));
        QVERIFY(!summary.rows_hold(copy.ledger, copy.maps, RopePolicy::FinalIndex, kRows + 16));
        QCOMPARE(digest.update(p.state(), form), StateDigest::from_scratch(p.state(), form));
    }

    // The journal keeps what edits change: appends, a removal and an insert below them, and
    // an edit of every row; rolled back, every map is as it was.
    void the_journal_puts_every_map_back() {
        Parts p;
        const std::vector<LayerMap> before = p.maps.all();
        p.maps.open_journal();
        const std::vector<int64_t> ids = {90001, 90002};
        const std::vector<int32_t> phases = {1, 2};
        p.maps.edit(0, kRows).insert(kRows, ids, phases);
        p.maps.edit(0, kChunk + 1).remove(kChunk + 1);
        p.maps.edit(0, 7).insert(7, ids, phases);
        p.maps.edit(1, 0).clear();
        const uint64_t revision = p.maps.revision(2);
        p.maps.roll_back();
        QVERIFY(!p.maps.journal_open());
        for (int l = 0; l < kLayers; ++l) {
            QVERIFY(p.maps[size_t(l)].pos2ledger == before[size_t(l)].pos2ledger);
            QVERIFY(p.maps[size_t(l)].rope_pos == before[size_t(l)].rope_pos);
        }
        QCOMPARE(p.maps.revision(2), revision);  // a layer no edit touched
        QVERIFY_THROWS_EXCEPTION(std::logic_error, p.maps.roll_back());
    }
};

QTEST_GUILESS_MAIN(TestStateDigest)
#include "test_state_digest.moc"
