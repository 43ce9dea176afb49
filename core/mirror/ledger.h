#pragma once
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "core/mirror/chunked_column.h"
#include "core/mirror/removal.h"

namespace kvw {

// Where a ledger record came from.
enum class EntryKind : uint8_t { Prompt, Generated, Replacement, Inserted, Gist };
const char* entry_kind_name(EntryKind kind);

// A record's standing in one layer: never written there, held by a cache row, or dropped.
// Collapsed: its row was replaced by a gist row that stands for it (ARCHITECTURE §14); expand
// makes it Live again.
enum class RowStatus : uint8_t { NeverHeld, Live, Removed, Collapsed };

// One token ever seen by the session (ARCHITECTURE §4). Records are never reordered or deleted;
// only their per-layer status, removal and died_tick change, and their brightness, which the
// ledger keeps per layer (Ledger::brightness).
struct LedgerEntry {
    int64_t id = 0;  // its index in the ledger
    EntryKind kind = EntryKind::Prompt;
    int32_t token_id = -1;
    std::string piece;
    int64_t born_tick = 0;
    int64_t died_tick = -1;         // -1 while live in any layer
    std::vector<RowStatus> status;  // [layer]
    std::vector<Removal> removal;   // [layer]: when and why it left the layer (tick -1: not)

    bool live_anywhere() const;
};

// The append-only history of the mirror. There is deliberately no way to remove a record.
class Ledger {
public:
    explicit Ledger(int n_layers);

    // A new record, NeverHeld in every layer until a row takes it. Returns its id.
    int64_t add(EntryKind kind, int32_t token_id, std::string piece, int64_t tick);

    // Throws std::out_of_range for an unknown id.
    const LedgerEntry& at(int64_t id) const;
    bool contains(int64_t id) const { return id >= 0 && id < int64_t(entries_.size()); }
    int64_t size() const { return int64_t(entries_.size()); }
    int n_layers() const { return n_layers_; }

    // Every record, index == id, read through its chunk (the records are not contiguous).
    class Entries {
    public:
        class iterator {
        public:
            using iterator_category = std::forward_iterator_tag;
            using value_type = LedgerEntry;
            using difference_type = std::ptrdiff_t;
            using pointer = const LedgerEntry*;
            using reference = const LedgerEntry&;
            iterator() = default;
            iterator(const ChunkedColumn<LedgerEntry>* records, size_t i)
                : records_(records), i_(i) {}
            reference operator*() const { return (*records_)[i_]; }
            pointer operator->() const { return &(*records_)[i_]; }
            iterator& operator++() {
                ++i_;
                return *this;
            }
            iterator operator++(int) {
                iterator was = *this;
                ++i_;
                return was;
            }
            bool operator==(const iterator& other) const { return i_ == other.i_; }

        private:
            const ChunkedColumn<LedgerEntry>* records_ = nullptr;
            size_t i_ = 0;
        };
        explicit Entries(const ChunkedColumn<LedgerEntry>& records) : records_(&records) {}
        size_t size() const { return records_->size(); }
        bool empty() const { return size() == 0; }
        const LedgerEntry& operator[](size_t i) const { return (*records_)[i]; }
        const LedgerEntry& back() const { return (*records_)[size() - 1]; }
        iterator begin() const { return {records_, 0}; }
        iterator end() const { return {records_, size()}; }

    private:
        const ChunkedColumn<LedgerEntry>* records_;
    };
    Entries entries() const { return Entries(entries_); }
    // The records in kChunkRecords chunks. A copy of the ledger (a checkpoint's) shares them
    // until one side writes a chunk, which copies it: copies taken every few ticks of a long
    // run hold the records once, not once per copy (ARCHITECTURE §16).
    using RecordChunks = std::vector<ChunkedColumn<LedgerEntry>::ChunkPtr>;
    const RecordChunks& record_chunks() const { return entries_.chunks(); }
    // The same as one shared list: what a Frame takes (one pointer, at any size).
    SpinePtr<LedgerEntry> record_spine() const { return entries_.spine(); }

    void mark_live(int64_t id, int layer);
    // Records when and why the record left the layer; sets died_tick once it is live in no
    // layer.
    void mark_removed(int64_t id, int layer, int64_t tick, RemovalCause cause = {});
    // As mark_removed, but the record stays reachable through the gist that covers it.
    void mark_collapsed(int64_t id, int layer, int64_t tick);
    // The brightness of record `id` in `layer`. Throws std::out_of_range for either unknown.
    float brightness(int64_t id, int layer) const;
    // The brightness in `layer` of each of `ids`, read in one pass (a tick reads every row's).
    // Throws std::out_of_range for an unknown layer or id.
    std::vector<float> brightness(int layer, std::span<const int64_t> ids) const;
    // The brightness in `layer` of records ids[i] := values[i] (ids.size() == values.size());
    // nothing is written when an id is unknown (std::out_of_range).
    void set_brightness(int layer, std::span<const int64_t> ids, std::span<const float> values);
    // The brightness in `layer` of records ids[i] := next(i, its value), in one pass, for a
    // tick's update of every row; the values before go to `before` (resized to ids.size())
    // unless it is null. Nothing is written when an id is unknown (std::out_of_range).
    template <typename Next>
    void update_brightness(int layer, std::span<const int64_t> ids, Next next,
                           std::vector<float>* before);
    // Every record's brightness in `layer`, index == id, in kChunkRecords chunks that a Frame
    // shares: a chunk is copied by the next write to it, never changed under a Frame.
    using BrightnessChunks = std::vector<ChunkedColumn<float>::ChunkPtr>;
    const BrightnessChunks& brightness_chunks(int layer) const;
    SpinePtr<float> brightness_spine(int layer) const;  // the same as one shared list
    // A checksum of `layer`'s brightness column: the sum over records of (2·id + 1) times the
    // value's bits, mod 2^64, kept up to date by every write, so that the state digest reads
    // one number per layer where a tick changed every row's brightness (ARCHITECTURE §6.1).
    // A change of any one value changes it (the weight is odd, a bit pattern's difference
    // is below 2^32), and so does an exchange of two records' values while ids are below
    // 2^31 (the weights then differ by less than 2^32: the product cannot wrap to 0).
    uint64_t brightness_sum(int layer) const { return brightness_sums_.at(size_t(layer)); }
    // The same sum read from every value: the reference brightness_sum is checked against.
    uint64_t brightness_sum_from_scratch(int layer) const;

    // Records per revision chunk (ARCHITECTURE §7.1).
    static constexpr int64_t kChunkRecords = 1024;
    int64_t chunk_count() const { return int64_t(chunk_revisions_.size()); }
    // Changes whenever a record of chunk `c` is added or its standing changes (status, removal,
    // died_tick); brightness does not count, it changes every tick and Frames share its
    // columns by chunk (brightness_chunks).
    // Revisions are unique across every Ledger of the process, so an equal revision means equal
    // records even after the session replaced its ledger: Frames share unchanged chunks by it.
    uint64_t chunk_revision(int64_t c) const { return chunk_revisions_[size_t(c)]; }
    // Each record's own revision in chunk c (as chunk_revision: taken when it was added or its
    // standing last changed), so that a reader that remembers what it read of a chunk can tell
    // which records are still as it read them: the state digest goes on from the records a
    // tick left alone instead of reading the chunk again (ARCHITECTURE §6.1).
    std::span<const uint64_t> record_revisions(int64_t c) const {
        return {&record_revisions_[size_t(c) * size_t(kChunkRecords)],
                record_revisions_.chunk_count_at(size_t(c))};
    }
    // True when a reader that read a chunk's first records with revisions `read` can go on
    // from them: they are still the chunk's first records, none changed (`now`:
    // record_revisions). Revisions are unique to one change of one record in any ledger, so
    // this holds across copies of the ledger too.
    static bool records_unchanged(std::span<const uint64_t> read, std::span<const uint64_t> now) {
        return !read.empty() && read.size() <= now.size() &&
               std::equal(read.begin(), read.end(), now.begin());
    }

    // The per-layer status, removal and died_tick of every record, so that an aborted tick can
    // put the mirror back without touching history: records born after the snapshot are kept,
    // marked Removed (TickAborted) where they were live, and die at `tick`. Taken as the record
    // chunks themselves, shared (a write copies a chunk first while another owner holds it), and
    // their revisions: a snapshot costs a pointer per chunk, and putting it back reads only the
    // chunks whose revision moved (ARCHITECTURE §6.1).
    struct Liveness {
        RecordChunks chunks;
        std::vector<uint64_t> revisions;  // [chunk]
        int64_t size = 0;                 // records then
    };
    Liveness liveness() const { return {record_chunks(), chunk_revisions_, size()}; }
    void restore_liveness(const Liveness& saved, int64_t tick);

private:
    // Record id's weight in brightness_sum: odd, and distinct per id.
    static uint64_t brightness_weight(size_t id) { return 2 * uint64_t(id) + 1; }
    LedgerEntry& entry(int64_t id);
    void check_ids(std::span<const int64_t> ids) const;  // std::out_of_range for an unknown one
    // The entry, its chunk given a new revision: every change of standing goes through here.
    LedgerEntry& changed_entry(int64_t id);

    int n_layers_;
    ChunkedColumn<LedgerEntry> entries_{size_t(kChunkRecords)};        // [id]
    std::vector<uint64_t> chunk_revisions_;                            // [chunk]
    ChunkedColumn<uint64_t> record_revisions_{size_t(kChunkRecords)};  // [id]
    std::vector<ChunkedColumn<float>> brightness_;                     // [layer][id]
    std::vector<uint64_t> brightness_sums_;                            // [layer]: brightness_sum
};

template <typename Next>
void Ledger::update_brightness(int layer, std::span<const int64_t> ids, Next next,
                               std::vector<float>* before) {
    ChunkedColumn<float>& column = brightness_.at(size_t(layer));
    // An unknown id stops the pass, and the values written before it are put back from
    // `before`, last first (an id met twice gets its first value back): a tick's pass over every
    // row then reads the ids once. Without `before` there is
    // nothing to put back from, so the ids are checked first.
    if (before)
        before->resize(ids.size());
    else
        check_ids(ids);
    float* const old_values = before ? before->data() : nullptr;
    const uint64_t size = uint64_t(entries_.size());
    // A layer's rows hold ids in nearly increasing order, so the chunk to write changes about
    // once per kChunkRecords values: its copy-on-write check is made once per run.
    uint64_t sum = brightness_sums_[size_t(layer)];
    size_t chunk = SIZE_MAX;
    float* data = nullptr;
    for (size_t i = 0; i < ids.size(); ++i) {
        const size_t id = size_t(ids[i]);
        if (id >= size) {  // a negative id wraps above any size
            for (size_t j = i; j-- > 0;) column.mutable_at(size_t(ids[j])) = old_values[j];
            (void)at(ids[i]);  // throws, naming the id
        }
        if (column.chunk_of(id) != chunk) {
            chunk = column.chunk_of(id);
            data = column.writable_chunk(chunk).data();
        }
        float* const slot = data + column.offset_of(id);
        const float old = *slot;
        if (old_values) old_values[i] = old;
        const float value = next(i, old);
        sum += brightness_weight(id) *
               (uint64_t(std::bit_cast<uint32_t>(value)) - std::bit_cast<uint32_t>(old));
        *slot = value;
    }
    brightness_sums_[size_t(layer)] = sum;
}

}  // namespace kvw
