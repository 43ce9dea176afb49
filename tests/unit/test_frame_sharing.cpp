// Frames share what did not change (ARCHITECTURE §7.1), and the state hash is computed once per
// state: after every kind of command the Frame still equals a plain copy of the state, chunk for
// chunk and row for row, and the memoised hash equals one computed from scratch.
#include <QtTest>

#include <cstring>
#include <functional>

#include "core/mirror/chunked_column.h"
#include "core/model/gguf_model_loader.h"
#include "core/model/model_loader.h"
#include "core/model/synthetic_model.h"
#include "core/session/frame_sharing.h"
#include "core/session/session.h"
#include "core/state/stream_hash.h"

using namespace kvw;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

// For the tests over several chunks of rows, which are a matter of rows, not of the model: the
// thin model (4 wide, one head) cut to 6 layers, so that prefilling 9,000 rows does not take
// minutes under the sanitizers as it did through tiny's attention.
constexpr const char* kThinModel = "synthetic:thin-22";
std::shared_ptr<const Model> thin_model() {
    static const std::shared_ptr<const Model> model = [] {
        SyntheticSpec spec = synthetic_spec("thin-22");
        spec.config.n_layers = 6;
        return load_gguf_model(synthetic_source(spec));
    }();
    return model;
}

SessionOptions options() {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.capacity = 2048;
    o.sampling.seed = 11;
    return o;
}

Action add(int32_t token) { return Action{AddAction{token}, {}}; }
Action del(int row, std::vector<int> layers = {}) {
    return Action{DeleteAction{row}, std::move(layers)};
}

// Enough rows that the ledger spans two chunks.
ActionList many_adds(int n) {
    ActionList adds;
    for (int i = 0; i < n; ++i) adds.push_back(add(int32_t(5 + i % 200)));
    return adds;
}

bool same_chunks(const ChunkedRecords<float>& a, const ChunkedRecords<float>& b) {
    if (a.chunk_count() != b.chunk_count()) return false;
    for (size_t c = 0; c < a.chunk_count(); ++c)
        if (a.chunk(c) != b.chunk(c)) return false;
    return true;
}

// The Frame's ledger and rows against the session's state, field by field.
void compare_with_state(const Frame& f, const Session& s) {
    const Ledger& ledger = s.state().ledger();
    QCOMPARE(int64_t(f.ledger.size()), ledger.size());
    for (int64_t id = 0; id < ledger.size(); ++id) {
        const LedgerEntry& e = ledger.at(id);
        const LedgerRecord& r = f.ledger[size_t(id)];
        QCOMPARE(r.id, e.id);
        QCOMPARE(r.token_id, e.token_id);
        QCOMPARE(r.born_tick, e.born_tick);
        QCOMPARE(r.died_tick, e.died_tick);
        QVERIFY2(r.status == e.status, qPrintable(QString("status of record %1").arg(id)));
        QCOMPARE(r.removal.size(), e.removal.size());
        for (size_t l = 0; l < e.removal.size(); ++l) {
            QCOMPARE(r.removal[l].tick, e.removal[l].tick);
            QVERIFY(r.removal[l].cause.reason == e.removal[l].cause.reason);
        }
    }
    QCOMPARE(int(f.layers.size()), s.state().n_layers());
    for (int l = 0; l < s.state().n_layers(); ++l) {
        const LayerMap& map = s.state().layer_map(l);
        QVERIFY(f.layers[size_t(l)].pos2ledger == map.pos2ledger);
        QVERIFY(f.layers[size_t(l)].rope_pos == map.rope_pos);
        for (size_t r = 0; r < map.pos2ledger.size(); ++r)
            QCOMPARE(f.layers[size_t(l)].brightness(r), ledger.brightness(map.pos2ledger[r], l));
    }
}

// The byte stream of the ledger, the maps and the stored rows, written out plainly here, and its
// XXH64 (StreamHash, itself checked against Python xxhash in test_stream_hash) as the reference
// the memoised StateManager::state_hash() must equal (docs/ARCHITECTURE.md §6). The sessions
// hash for their trace events after every command, so a second session is no reference: its
// memo would be as stale as the first one's.
struct Stream {
    std::vector<unsigned char> all;
    void bytes(const void* p, size_t n) {
        const auto* b = static_cast<const unsigned char*>(p);
        all.insert(all.end(), b, b + n);
    }
    template <class T>
    void value(const T& v) {
        bytes(&v, sizeof v);
    }
    uint64_t digest() const {
        StreamHash h;
        h.bytes(all.data(), all.size());
        return h.digest();
    }
};

// A record's fields but brightness and standing, then its standing (status and removals).
void stream_identity(Stream& f, const LedgerEntry& e) {
    f.value(e.id);
    f.value(e.kind);
    f.value(e.token_id);
    f.bytes(e.piece.data(), e.piece.size());
    f.value(e.born_tick);
    f.value(e.died_tick);
}

void stream_standing(Stream& f, const LedgerEntry& e) {
    f.bytes(e.status.data(), e.status.size());
    for (const Removal& r : e.removal) {
        f.value(r.tick);
        f.value(r.cause.reason);
        f.value(r.cause.score.value_or(0.0f));
        f.value(r.cause.score.has_value());
    }
}

uint64_t reference_state_hash(const StateManager& state) {
    Stream f;
    f.value(state.policy());
    for (const LedgerEntry& e : state.ledger().entries()) {
        stream_identity(f, e);
        for (int l = 0; l < state.n_layers(); ++l) f.value(state.ledger().brightness(e.id, l));
        stream_standing(f, e);
    }
    for (int l = 0; l < state.n_layers(); ++l) {
        const LayerMap& map = state.layer_map(l);
        f.value(map.rows());
        f.bytes(map.pos2ledger.data(), map.pos2ledger.size() * sizeof(int64_t));
        f.bytes(map.rope_pos.data(), map.rope_pos.size() * sizeof(int32_t));
        f.value(state.cache().rows(l));
        for (int r = 0; r < state.cache().rows(l); ++r) {
            const std::vector<uint8_t> row = state.cache().stored_row(l, r);
            f.bytes(row.data(), row.size());
        }
    }
    return f.digest();
}

// The digest of digests (docs/ARCHITECTURE.md §6.1) written out plainly: XXH64 of the policy,
// the ledger's size, the XXH64 of each 1,024 records' bytes, per layer the sum over records of
// (2·id + 1) times the bits of its brightness (mod 2^64), then per layer its row counts and per
// 256 rows the XXH64 of the count and XXH64 of their ids, of their phases and of their stored
// bytes, each column a stream of its own. Every piece is read from the state anew:
// the reference the memoised hash, which rereads only chunks whose revisions moved, must equal.
uint64_t reference_chunk_digest(const StateManager& state) {
    constexpr int64_t kRecords = 1024;
    constexpr int kRows = 256;
    const Ledger& ledger = state.ledger();
    Stream f;
    f.value(state.policy());
    f.value(ledger.size());
    for (int64_t first = 0; first < ledger.size(); first += kRecords) {
        Stream chunk;
        for (int64_t id = first; id < std::min(first + kRecords, ledger.size()); ++id) {
            stream_identity(chunk, ledger.at(id));
            stream_standing(chunk, ledger.at(id));
        }
        f.value(chunk.digest());
    }
    for (int l = 0; l < state.n_layers(); ++l) {
        uint64_t sum = 0;
        for (int64_t id = 0; id < ledger.size(); ++id) {
            const float b = ledger.brightness(id, l);
            uint32_t bits;
            std::memcpy(&bits, &b, 4);
            sum += (2 * uint64_t(id) + 1) * uint64_t(bits);
        }
        f.value(sum);
    }
    for (int l = 0; l < state.n_layers(); ++l) {
        const LayerMap& map = state.layer_map(l);
        const int cache_rows = state.cache().rows(l);
        f.value(map.rows());
        f.value(cache_rows);
        for (int first = 0; first < std::max(map.rows(), cache_rows); first += kRows) {
            const int map_end = std::max(first, std::min(first + kRows, map.rows()));
            const int cache_end = std::max(first, std::min(first + kRows, cache_rows));
            Stream ids, phases, stored;
            ids.bytes(map.pos2ledger.data() + first, size_t(map_end - first) * 8);
            phases.bytes(map.rope_pos.data() + first, size_t(map_end - first) * 4);
            for (int r = first; r < cache_end; ++r) {
                const std::vector<uint8_t> row = state.cache().stored_row(l, r);
                stored.bytes(row.data(), row.size());
            }
            Stream block;
            for (const auto& [rows, column] :
                 {std::pair{map_end - first, &ids}, std::pair{map_end - first, &phases},
                  std::pair{cache_end - first, &stored}}) {
                block.value(rows);
                block.value(column->digest());
            }
            f.value(block.digest());
        }
    }
    return f.digest();
}

}  // namespace

class TestFrameSharing : public QObject {
    Q_OBJECT
private slots:
    void unchanged_chunks_and_rows_are_shared() {
        Session s(options(), tiny_model());
        s.start("the cache remembers");
        s.apply_now(many_adds(1990));
        const FramePtr a = s.frame();
        QVERIFY(a->ledger.chunk_count() >= 2);
        compare_with_state(*a, s);

        // Nothing changed: every chunk and every layer's rows are the same copies.
        const FramePtr again = s.frame();
        for (size_t c = 0; c < a->ledger.chunk_count(); ++c)
            QVERIFY(again->ledger.chunk(c) == a->ledger.chunk(c));
        for (size_t l = 0; l < a->layers.size(); ++l) {
            QVERIFY(again->layers[l].pos2ledger.shares_with(a->layers[l].pos2ledger));
            QVERIFY(again->layers[l].rope_pos.shares_with(a->layers[l].rope_pos));
            QVERIFY(
                same_chunks(again->layers[l].record_brightness, a->layers[l].record_brightness));
        }
        std::vector<float> lit_before;
        for (int r = 0; r < a->layers[0].rows(); ++r)
            lit_before.push_back(a->layers[0].brightness(size_t(r)));

        // A tick adds a record to the last chunk, past what Frame a holds: every chunk is
        // shared, the last one appended in place, and a still reads only its own records.
        const std::vector<LedgerEntry> records_of_a = a->ledger.to_vector();
        s.step();
        const FramePtr b = s.frame();
        compare_with_state(*b, s);
        QCOMPARE(b->ledger.size(), a->ledger.size() + 1);
        for (size_t c = 0; c < a->ledger.chunk_count(); ++c)
            QVERIFY2(b->ledger.chunk(c) == a->ledger.chunk(c), qPrintable(QString::number(c)));
        QCOMPARE(a->ledger.size(), records_of_a.size());
        for (size_t i = 0; i < records_of_a.size(); ++i) {
            QCOMPARE(a->ledger[i].status, records_of_a[i].status);
            QCOMPARE(a->ledger[i].died_tick, records_of_a[i].died_tick);
        }
        // The tick's brightness update (decay and the new row's attention) reached every layer
        // and every chunk of it, in new copies: the Frame before still shows what it showed.
        for (size_t l = 0; l < a->layers.size(); ++l)
            for (size_t c = 0; c < a->layers[l].record_brightness.chunk_count(); ++c)
                QVERIFY(b->layers[l].record_brightness.chunk(c) !=
                        a->layers[l].record_brightness.chunk(c));
        int decayed = 0;
        for (int r = 0; r < a->layers[0].rows(); ++r) {
            QCOMPARE(a->layers[0].brightness(size_t(r)), lit_before[size_t(r)]);
            decayed += b->layers[0].brightness(size_t(r)) < lit_before[size_t(r)];
        }
        QVERIFY(decayed > 0);

        // A delete in layer 1 of a record of chunk 0: that chunk and that layer are new copies,
        // chunk 1 and the other layers' phases are shared; the old Frame still shows the old
        // state (Frames are immutable).
        s.apply_now({del(5, {1})});
        const FramePtr c = s.frame();
        compare_with_state(*c, s);
        QVERIFY(c->ledger.chunk(0) != b->ledger.chunk(0));
        QVERIFY(c->ledger.chunk(1) == b->ledger.chunk(1));
        QVERIFY(!c->layers[1].pos2ledger.shares_with(b->layers[1].pos2ledger));
        QVERIFY(c->layers[0].pos2ledger.shares_with(b->layers[0].pos2ledger));
        // The delete changed no brightness: every layer's column is the same copy.
        for (size_t l = 0; l < b->layers.size(); ++l)
            QVERIFY(same_chunks(c->layers[l].record_brightness, b->layers[l].record_brightness));
        const int64_t gone = b->layers[1].pos2ledger[5];
        QCOMPARE(b->ledger[size_t(gone)].status[1], RowStatus::Live);
        QCOMPARE(c->ledger[size_t(gone)].status[1], RowStatus::Removed);
    }

    // A layer's rows travel in LayerMaps::kChunkRows chunks: an append goes on in the last
    // chunk of every layer past the rows the Frames before read, a delete or an insert renews
    // the chunks from its row on in its layers, and every other chunk is the last Frame's copy;
    // each Frame still equals the state row for row, and an older Frame keeps the rows it had.
    void layer_rows_are_shared_by_chunk() {
        constexpr size_t kRows = LayerMaps::kChunkRows;
        SessionOptions o = options();
        o.capacity = int(2 * kRows + 1000);
        o.model = kThinModel;
        Session s(o, thin_model());
        s.start("the cache remembers");
        s.apply_now(many_adds(int(2 * kRows + 500)));
        const FramePtr a = s.frame();
        QCOMPARE(a->layers[0].pos2ledger.chunk_count(), size_t(3));
        const std::vector<int64_t> rows_of_a = a->layers[0].pos2ledger.to_vector();

        const auto shared = [](const FramePtr& x, const FramePtr& y, size_t l, size_t c) {
            const bool ids = x->layers[l].pos2ledger.chunk(c) == y->layers[l].pos2ledger.chunk(c);
            const bool phases = x->layers[l].rope_pos.chunk(c) == y->layers[l].rope_pos.chunk(c);
            if (ids != phases) qWarning("layer %zu chunk %zu: ids and phases disagree", l, c);
            return ids && phases;
        };
        s.step();
        const FramePtr b = s.frame();
        compare_with_state(*b, s);
        for (size_t l = 0; l < b->layers.size(); ++l)
            for (size_t chunk = 0; chunk < 3; ++chunk) QVERIFY(shared(a, b, l, chunk));
        QCOMPARE(b->layers[0].rows(), a->layers[0].rows() + 1);

        // After an edit of layer 1's second chunk: the Frame equals the state, layer 1's first
        // chunk and all of layer 0 are shared with the Frame before, layer 1's others copied.
        const auto only_layer_1_copied_from_its_second_chunk = [&](const FramePtr& before,
                                                                   const FramePtr& after) {
            compare_with_state(*after, s);
            QVERIFY(shared(before, after, 1, 0));
            QVERIFY(!shared(before, after, 1, 1));
            QVERIFY(!shared(before, after, 1, 2));
            for (size_t chunk = 0; chunk < 3; ++chunk) QVERIFY(shared(before, after, 0, chunk));
        };
        s.apply_now({del(int(kRows) + 7, {1})});  // in layer 1's second chunk
        const FramePtr c = s.frame();
        only_layer_1_copied_from_its_second_chunk(b, c);

        s.apply_now({Action{InsertAction{3, {7, 8}}, {}}});  // in every layer's first chunk
        const FramePtr d = s.frame();
        compare_with_state(*d, s);
        for (size_t l = 0; l < d->layers.size(); ++l)
            for (size_t chunk = 0; chunk < 3; ++chunk) QVERIFY(!shared(c, d, l, chunk));

        // The last row deleted and a tick's row put in its place: the rows the Frame before read
        // changed, so the last chunk is a new copy, and that Frame keeps its rows.
        const std::vector<int64_t> rows_of_d = d->layers[0].pos2ledger.to_vector();
        const TickResult deleted = s.apply_now({del(d->layers[0].rows() - 1, {0})});
        QVERIFY2(!deleted.rejected && !deleted.aborted,
                 deleted.rejections.empty() ? "" : deleted.rejections[0].message.c_str());
        QCOMPARE(s.state().rows(0), d->layers[0].rows() - 1);
        s.step();
        const FramePtr e = s.frame();
        compare_with_state(*e, s);
        QCOMPARE(e->layers[0].rows(), d->layers[0].rows());
        QVERIFY(e->layers[0].pos2ledger.chunk(2) != d->layers[0].pos2ledger.chunk(2));
        QVERIFY(d->layers[0].pos2ledger == rows_of_d);
        QVERIFY(a->layers[0].pos2ledger == rows_of_a);

        // More edits of one layer between two Frames than its revisions keep renewals of
        // (ChunkRevisions): the Frame compares each chunk with the last Frame's, shares the
        // equal ones and copies the others; the last Frame keeps its rows.
        const std::vector<int64_t> rows_of_e = e->layers[1].pos2ledger.to_vector();
        ActionList deletes;
        for (int i = 0; i < 40; ++i) deletes.push_back(del(int(kRows) + 10 + i, {1}));
        const TickResult deleted_many = s.apply_now(deletes);
        QVERIFY(!deleted_many.rejected && !deleted_many.aborted);
        only_layer_1_copied_from_its_second_chunk(e, s.frame());
        QVERIFY(e->layers[1].pos2ledger == rows_of_e);
    }

    // A column's chunks are shared until written: a holder (a Frame) keeps the values it took,
    // the writer reads its writes, and a chunk nobody else holds is written in place.
    void column_chunks_are_copied_on_write_only_while_shared() {
        ChunkedColumn<float> column(4);
        for (int i = 0; i < 10; ++i) column.push_back(float(i));
        QCOMPARE(column.chunks().size(), size_t(3));
        const std::vector<ChunkedColumn<float>::ChunkPtr> held = column.chunks();
        column.set(5, 50.0f);
        QCOMPARE((*held[1])[1], 5.0f);
        QVERIFY(column.chunks()[1] != held[1]);
        QVERIFY(column.chunks()[0] == held[0]);
        QVERIFY(column.chunks()[2] == held[2]);
        const ChunkedColumn<float>::Chunk* copy = column.chunks()[1].get();
        column.set(6, 60.0f);
        QVERIFY(column.chunks()[1].get() == copy);
        // (chunks() would share the values it hands out: the chunk is told by its values' address)
        column.push_back(10.0f);  // past what the holder took: in place, unseen by it
        QVERIFY(&column[8] == held[2]->data());
        column.set(10, 100.0f);  // the value only this column has: still in place
        QVERIFY(&column[8] == held[2]->data());
        column.set(9, 90.0f);  // a value the holder reads: copied first
        QVERIFY(&column[8] != held[2]->data());
        QCOMPARE(column.size(), size_t(11));
        for (size_t i = 0; i < column.size(); ++i)
            QCOMPARE(column[i], i == 5    ? 50.0f
                                : i == 6  ? 60.0f
                                : i == 9  ? 90.0f
                                : i == 10 ? 100.0f
                                          : float(i));
        for (size_t i = 0; i < 10; ++i) QCOMPARE((*held[i / 4])[i % 4], float(i));
    }

    // A holder of the whole list of a column's chunks (spine(): what a Frame takes, one
    // pointer) keeps the values it took while the column writes, appends new chunks and
    // appends in place; once nobody holds them, the column writes its chunks in place again.
    void a_held_list_of_chunks_keeps_its_values() {
        ChunkedColumn<float> column(4);
        for (int i = 0; i < 10; ++i) column.push_back(float(i));
        std::vector<float> want(10);
        for (int i = 0; i < 10; ++i) want[size_t(i)] = float(i);
        {
            const ChunkedRecords<float> held(column.spine(), column.size(), 4);
            const float* middle = &column[4];
            column.set(5, 50.0f);  // every chunk of the list is held: copied first
            QVERIFY(&column[4] != middle);
            column.set(9, 90.0f);  // a value of the last chunk the holder reads
            for (int i = 10; i < 19; ++i) column.push_back(float(i));  // new chunks
            column.set(17, 170.0f);
            QCOMPARE(held.size(), size_t(10));
            QCOMPARE(held.chunk_count(), size_t(3));
            for (size_t i = 0; i < 10; ++i) QCOMPARE(held[i], want[i]);
        }
        const float* first = &column[0];
        column.set(1, 10.0f);  // nobody else holds chunk 0 or the list now: in place
        QVERIFY(&column[0] == first);
        want[1] = 10.0f;
        want[5] = 50.0f;
        want[9] = 90.0f;
        for (int i = 10; i < 19; ++i) want.push_back(i == 17 ? 170.0f : float(i));
        QCOMPARE(column.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) QCOMPARE(column[i], want[i]);
        const ChunkedRecords<float> all(column.spine(), column.size(), 4);
        QVERIFY(all == want);
        QVERIFY(all.first_chunks(2) == std::vector<float>(want.begin(), want.begin() + 8));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, (void)all.first_chunks(5));
    }

    // Two copies of a column share its last chunk; each appends, writes and reads its own
    // values only, whichever appends first, and the copies' values never leak into each other.
    // Checked against plain vectors that each copy's writes went to.
    void column_copies_append_to_a_shared_chunk_without_seeing_each_other() {
        constexpr size_t kChunk = 8;
        ChunkedColumn<int> a(kChunk);
        std::vector<int> want_a;
        for (int i = 0; i < 11; ++i) {
            a.push_back(i);
            want_a.push_back(i);
        }
        ChunkedColumn<int> b = a;  // a snapshot: shares all of a's chunks
        std::vector<int> want_b = want_a;
        const auto same = [](const ChunkedColumn<int>& column, const std::vector<int>& want) {
            if (column.size() != want.size()) return false;
            for (size_t i = 0; i < want.size(); ++i)
                if (column[i] != want[i]) return false;
            return true;
        };
        // (chunks() would share the values it hands out: a chunk is told by its values' address)
        const int* tail = &a[8];
        a.push_back(100);  // a appended last: in place
        want_a.push_back(100);
        QVERIFY(&a[8] == tail);
        a.set(11, 101);  // a's own value: in place
        want_a[11] = 101;
        QVERIFY(&a[8] == tail);
        b.push_back(200);  // the chunk holds a's value there: b copies
        want_b.push_back(200);
        QVERIFY(&b[8] != tail);
        a.set(10, 110);  // b held it (until b copied): a copies too
        want_a[10] = 110;
        for (int i = 0; i < 9; ++i) {  // both over a new chunk
            a.push_back(300 + i);
            want_a.push_back(300 + i);
            b.push_back(400 + i);
            want_b.push_back(400 + i);
        }
        QVERIFY(same(a, want_a));
        QVERIFY(same(b, want_b));
        QVERIFY(a.chunks()[0] == b.chunks()[0]);  // never written: still one chunk

        // A copy left alone with a chunk another copy appended to drops those values before
        // appending its own in place.
        ChunkedColumn<int> c(kChunk);
        for (int i = 0; i < 3; ++i) c.push_back(i);
        {
            ChunkedColumn<int> d = c;
            d.push_back(7);
            d.push_back(8);
        }
        c.push_back(3);
        QVERIFY(same(c, {0, 1, 2, 3}));
        QCOMPARE(c.chunks()[0]->size(), size_t(4));
    }

    // Layers of different lengths and orders (per-layer eviction) each read their own records'
    // values in their own rows through the shared columns, and a row without a record reads 0.
    void brightness_of_layers_with_other_rows() {
        constexpr int kLayers = 3, kRecords = 900;
        Ledger ledger(kLayers);
        std::vector<int64_t> ids;
        for (int i = 0; i < kRecords; ++i)
            ids.push_back(ledger.add(EntryKind::Prompt, 5 + i % 50, "x", 0));
        const auto plain = [](int l, int64_t id) { return float((id * 5 + l * 11) % 300); };
        for (int l = 0; l < kLayers; ++l) {
            std::vector<float> values;
            for (int64_t id : ids) values.push_back(plain(l, id));
            ledger.set_brightness(l, ids, values);
        }
        std::vector<std::vector<int64_t>> layer_rows(kLayers);
        layer_rows[0] = ids;                                     // all, in order
        layer_rows[1].assign(ids.rbegin(), ids.rbegin() + 400);  // 400, reversed
        for (int64_t id : ids)
            if (id % 3 == 0) layer_rows[2].push_back(id);  // every third
        layer_rows[2].push_back(-1);                       // a row without a record
        for (int l = 0; l < kLayers; ++l) {
            LayerFrame got;
            got.pos2ledger = layer_rows[size_t(l)];
            got.record_brightness = ChunkedRecords<float>(
                ledger.brightness_spine(l), size_t(ledger.size()), size_t(Ledger::kChunkRecords));
            const std::vector<int64_t>& want = layer_rows[size_t(l)];
            QCOMPARE(size_t(got.rows()), want.size());
            for (size_t r = 0; r < want.size(); ++r)
                QCOMPARE(got.brightness(r), want[r] < 0 ? 0.0f : plain(l, want[r]));
        }
    }

    // A new sequence makes a new ledger whose revisions never repeat an old one's: no chunk of
    // the old prompt's Frame is shared into the new one by accident.
    void a_new_prompt_shares_nothing_stale() {
        Session s(options(), tiny_model());
        s.start("one prompt here");
        const FramePtr a = s.frame();
        s.start("another prompt, of other words");
        const FramePtr b = s.frame();
        compare_with_state(*b, s);
        QVERIFY(b->ledger.chunk(0) != a->ledger.chunk(0));
    }

    // Every command kind, then the Frame against the state and the memoised hash against the
    // reference computed from the state as it is now: a map write that kept its revision would
    // leave the Frame showing the old rows.
    void every_command_keeps_frame_and_hash_true() {
        const std::vector<std::function<void(Session&)>> commands = {
            [](Session& s) { s.start("the cache remembers the tokens"); },
            [](Session& s) { s.step(); },
            [](Session& s) { s.apply_now({del(2)}); },
            [](Session& s) { s.apply_now({del(1, {0})}); },
            [](Session& s) { s.step(); },
            [](Session& s) { s.rebuild(); },
            [](Session& s) { s.set_rope_policy(RopePolicy::Original); },
            [](Session& s) { s.step(); },
            [](Session& s) { s.set_kv_types(KvType::BF16, KvType::Int8); },
            [](Session& s) { s.step(); },
            [](Session& s) { s.set_layout(CacheLayout::Indirection); },
            [](Session& s) {
                s.apply_now({Action{InsertAction{3, {7, 8}}, {}}});
            },
            [](Session& s) { s.undo(); },
            [](Session& s) { s.redo(); },
            [](Session& s) { s.step(); },
            [](Session& s) { s.set_rope_policy(RopePolicy::FinalIndex); },
            [](Session& s) { s.set_wlod(4, 0); },
            [](Session& s) {
                s.apply_now({Action{CollapseAction{4, 1}, {}}});
            },
            [](Session& s) {
                s.apply_now({Action{ExpandAction{4}, {}}});
            },
            [](Session& s) { s.set_wlod(0, 0); },
            [](Session& s) { s.set_layout(CacheLayout::Contiguous); },
            [](Session& s) { s.measure_drift(); },
            [](Session& s) { s.start("a new prompt"); },
            [](Session& s) {
                s.set_layout(CacheLayout::Ring, {RingMode::Pointer, 2}, 16);
            },
            [](Session& s) {
                for (int i = 0; i < 16; ++i) s.step();  // the ring overwrites its oldest rows
            },
            [](Session& s) { s.debug_desync_row(1, 3); },  // a map changed behind the cache
        };
        Session s(options(), tiny_model());
        for (size_t i = 0; i < commands.size(); ++i) {
            commands[i](s);
            const uint64_t memo = s.state_hash();  // asked after every command
            compare_with_state(*s.frame(), s);
            QCOMPARE(s.frame()->state_hash, memo);
            QVERIFY2(memo == reference_chunk_digest(s.state()),
                     qPrintable(QString("command %1: memoised hash differs").arg(i)));
            QVERIFY2(s.state().stream_state_hash() == reference_state_hash(s.state()),
                     qPrintable(QString("command %1: the stream hash differs").arg(i)));
        }
    }

    // The same over several chunks of rows and records (the thin model, 9,000 rows): commands
    // that touch one chunk, shift every chunk after a row, or rewrite every stored row. The
    // incremental invariants say what the full check says after each.
    void the_digest_over_many_chunks_equals_the_reference_after_every_command() {
        const std::vector<std::function<void(Session&)>> commands = {
            [](Session& s) {
                s.start("the cache remembers the tokens");
                s.apply_now(many_adds(9000));
            },
            [](Session& s) { s.step(); },
            [](Session& s) { s.apply_now({del(100)}); },        // every chunk from the first on
            [](Session& s) { s.apply_now({del(8500, {3})}); },  // one layer's last chunk
            [](Session& s) {
                s.apply_now({Action{InsertAction{5000, {7, 8, 9}}, {}}});
            },
            [](Session& s) { s.step(); },
            [](Session& s) { s.set_kv_types(KvType::F16, KvType::Int8); },
            [](Session& s) { s.set_layout(CacheLayout::Indirection); },
            [](Session& s) {
                s.apply_now({del(4096), del(4097)});
            },
            [](Session& s) { s.set_layout(CacheLayout::Contiguous); },
            [](Session& s) { s.step(); },
            [](Session& s) { s.debug_desync_row(5, 6000); },
        };
        SessionOptions o = options();
        o.model = kThinModel;
        o.capacity = 9100;
        Session s(o, thin_model());
        for (size_t i = 0; i < commands.size(); ++i) {
            commands[i](s);
            QVERIFY2(s.state_hash() == reference_chunk_digest(s.state()),
                     qPrintable(QString("command %1: memoised hash differs").arg(i)));
            QCOMPARE(s.state().check_invariants(), s.state().check_invariants_full());
        }
        QVERIFY(!all_passed(s.state().check_invariants()));  // the desync
    }
};

QTEST_GUILESS_MAIN(TestFrameSharing)
#include "test_frame_sharing.moc"
