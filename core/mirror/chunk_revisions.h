#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace kvw {

// Rows per revision block, kept alike by the maps (LayerMaps) and the cache (KvLayout), so
// that a block of a layer's rows has one map revision and one cache revision: what the
// incremental state digest and invariants remember a block's summary by (ARCHITECTURE §6.1).
// Small, so that a tick's append makes them read a few hundred rows per layer again; a
// Frame's larger chunks are renewed with any of their blocks.
inline constexpr int kRevisionBlockRows = 256;

// The revisions of one layer's rows by block of kRevisionBlockRows rows. Every revision comes
// from next_revision() (core/mirror/revision.h), unique across the process and larger than
// any before it, so that two equal revisions mean the same rows even across copies and
// replaced objects.
class ChunkRevisions {
public:
    ChunkRevisions();
    // The revision of rows [block * kRevisionBlockRows, (block + 1) * kRevisionBlockRows).
    uint64_t block(size_t block) const { return block < blocks_.size() ? blocks_[block] : latest_; }
    // The newest revision of any block: it changes whenever a row does.
    uint64_t latest() const { return latest_; }
    static constexpr int kToEnd = std::numeric_limits<int>::max();
    // Rows [first, end) of a layer; end kToEnd: every row from first on.
    struct RowSpan {
        int first = 0;
        int end = 0;
        bool empty() const { return end <= first; }
        // The first row that may have changed; past every row when none did.
        int first_changed() const { return empty() ? kToEnd : first; }
    };
    // The rows that may have changed since latest() was `since`, a revision a reader saw here
    // or in the copy this was made from: the rows before them kept their values, so a reader
    // that remembers what it read (the state digest, the invariants' summary, a Frame, a
    // backend's copy of the rows) reads from there on only, not every row of 100,000 after
    // each tick (ARCHITECTURE §6.1). Empty when nothing moved; every row ({0, kToEnd}) when
    // `since` is not among the last kRenewalsKept renewals (an older reader, or rows that do
    // not descend from it: a restored checkpoint, another session's copy).
    RowSpan rows_renewed_since(uint64_t since) const;
    // The first block `rows` reaches: the blocks before it kept their revisions (kNoneRenewed
    // when it is empty).
    static size_t first_block(RowSpan rows);
    static constexpr size_t kNoneRenewed = std::numeric_limits<size_t>::max();

    // Rows from first_row on changed or moved (an append, an insert or a removal, whose later
    // rows shift): first_row's block and every later one take a new revision.
    void renew_from(int first_row);
    // Rows [first_row, end_row) were rewritten in place: only their blocks take new revisions.
    void renew_rows(int first_row, int end_row);

private:
    // latest_ became `revision` by renewing `rows`.
    struct Renewal {
        uint64_t revision = 0;
        RowSpan rows;
    };
    // A tick renews a layer's rows once or twice (its edits, the append): readers that look
    // after every command find theirs among the last few.
    static constexpr size_t kRenewalsKept = 32;
    void renewed(RowSpan rows);

    std::vector<uint64_t> blocks_;  // [block]; a block past the end has latest_
    uint64_t latest_ = 0;
    std::vector<Renewal> renewals_;  // the last kRenewalsKept, oldest first; the last is latest_
};

}  // namespace kvw
