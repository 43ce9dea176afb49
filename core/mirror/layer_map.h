#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "core/mirror/chunk_revisions.h"

namespace kvw {

// One layer's half of the mirror: which ledger record each cache row holds (pos2ledger) and
// the RoPE phase applied to that row's K (rope_pos). Spliced by the same calls, with the same
// arguments, that splice the layer's tensors.
struct LayerMap {
    std::vector<int64_t> pos2ledger;
    std::vector<int32_t> rope_pos;

    int rows() const { return int(pos2ledger.size()); }
    // ids.size() == phases.size(); 0 <= row <= rows(). Throws std::out_of_range otherwise.
    void insert(int row, std::span<const int64_t> ids, std::span<const int32_t> phases);
    // 0 <= row < rows(). Throws std::out_of_range otherwise.
    void remove(int row);
    void clear();
};

// Every layer's map, each with a revision (next_revision) that every write takes anew: the
// only way to a writable map is edit(), so no primitive can change a map and leave its
// revision behind. The revision is also kept per block of kRevisionBlockRows rows, and each
// renewal is remembered, so that a Frame shares the chunks of kChunkRows rows that a write left
// alone (ARCHITECTURE §7.1): an append renews the last block only, a delete the blocks from its
// row on (the later rows shift).
//
// A journal, while open, keeps what edits change, so that a tick's Step 4 can be taken back
// without copying every map first (ARCHITECTURE §6.1): edit() promises that the rows before
// first_row stay as they are, so the journal saves the rows from first_row on the first time
// an edit reaches below what it saved, and an append saves nothing.
class LayerMaps {
public:
    explicit LayerMaps(size_t n_layers);

    size_t size() const { return maps_.size(); }
    // Throws std::out_of_range for a layer outside [0, size()).
    const LayerMap& at(size_t layer) const { return maps_.at(layer); }
    const LayerMap& operator[](size_t layer) const { return maps_[layer]; }
    static constexpr int kChunkRows = 4096;  // a power of two (a Frame's SharedRows chunk)
    static_assert(kChunkRows % kRevisionBlockRows == 0);
    uint64_t revision(size_t layer) const { return revisions_.at(layer).latest(); }
    // The revision of the layer's rows [block * kRevisionBlockRows, (block + 1) * ...).
    uint64_t block_revision(size_t layer, size_t block) const {
        return revisions_.at(layer).block(block);
    }
    // The layer's rows that may have changed since revision(layer) was `since`
    // (ChunkRevisions::rows_renewed_since): the rows before it kept their values.
    ChunkRevisions::RowSpan rows_renewed_since(size_t layer, uint64_t since) const {
        return revisions_.at(layer).rows_renewed_since(since);
    }
    // The layer's map to change at `first_row` and after it (the rows before it stay as they
    // are), its revision and those of the blocks from first_row's on already new.
    LayerMap& edit(size_t layer, int first_row = 0);
    const std::vector<LayerMap>& all() const { return maps_; }

    // Starts keeping what edits change (one journal at a time: std::logic_error otherwise).
    void open_journal();
    // Every map back as it was when the journal was opened; the journal is closed.
    void roll_back();
    // Forgets the journal: the edits since it was opened stay.
    void close_journal() { journal_.clear(); }
    bool journal_open() const { return !journal_.empty(); }

    // A checkpoint's copy (ARCHITECTURE §16): every layer's rows in shared read-only blocks of
    // kRevisionBlockRows rows, its maps empty. A block of `earlier` (another frozen copy, or
    // null) with the same layer, index and revision, holding at least the rows needed, is
    // shared, not copied: equal revisions mean equal rows (core/mirror/revision.h). A frozen
    // copy is only thawed or measured.
    LayerMaps frozen(const LayerMaps* earlier) const;
    // The maps again, revisions kept.
    LayerMaps thawed() const;
    bool is_frozen() const { return !frozen_.empty(); }
    // Calls `f(block, bytes)` once per block a frozen copy holds, `block` naming it.
    void for_each_frozen_block(const std::function<void(const void*, uint64_t)>& f) const;

private:
    struct FrozenBlock {
        uint64_t revision = 0;
        std::vector<int64_t> pos2ledger;  // at most kRevisionBlockRows rows of each
        std::vector<int32_t> rope_pos;
    };
    // One layer of a frozen copy: its row counts and blocks.
    struct FrozenLayer {
        size_t ids = 0, phases = 0;
        std::vector<std::shared_ptr<const FrozenBlock>> blocks;
    };

    // One layer's journal: rows [0, kept) are as they were when it was opened, and the rows it
    // had from `kept` on are saved here.
    struct SavedRows {
        int kept = 0;
        std::vector<int64_t> pos2ledger;
        std::vector<int32_t> rope_pos;
    };
    std::vector<LayerMap> maps_;
    std::vector<ChunkRevisions> revisions_;  // [layer]
    std::vector<SavedRows> journal_;         // [layer] while open; empty when closed
    std::vector<FrozenLayer> frozen_;        // [layer] in a frozen copy; else empty
};

}  // namespace kvw
