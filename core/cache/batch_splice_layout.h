#pragma once
#include <vector>

#include "core/cache/kv_layout.h"

namespace kvw {

// Batch-splice: insert and remove only record the edit; the rows move when they are next read
// as a block, in one pass per layer for all the edits recorded since (ARCHITECTURE §4, layouts).
//
// Why apply on read rather than on an explicit flush: every public read must see the logical
// rows, and StateManager's callers (tick.cpp, Session, the tests) read between primitives, so a
// flush that some caller must remember would be a second way to get a stale view. A read of a
// prefix that no pending edit touches (view(layer, row) as insert's context, where a tick's edits
// run in descending row order) needs no pass at all; so a tick's edits cost one pass, made by
// the first full read after them (the tick's append, the next forward, the hash, the drift).
// Under the Reindex RoPE policy StateManager re-rotates rows after every primitive, which reads
// them: that policy gets one pass per primitive, like the contiguous layout.
//
// The pending edits are a piece table over the slab as it was at the last pass: the logical rows
// are a list of runs, each either slab rows [start, start + count) or staged new rows. Staged
// rows wait as floats in the memory of the slab's device, so a forward's rows go from where the
// backend made them to the staging and on to the slab without crossing to the host.
class BatchSpliceLayout : public KvLayout {
public:
    BatchSpliceLayout(int n_layers, int kv_dim, int capacity, KvStorage storage = {},
                      KvRowDevice& device = host_row_device());

    CacheLayout layout() const override { return CacheLayout::BatchSplice; }
    uint64_t bytes() const override;
    // The slab rows the pending edits refer to (rows() once they are applied).
    int physical_rows(int layer) const override;
    // Edits recorded and not yet applied to the layer's slab rows.
    bool pending(int layer) const { return layers_.at(size_t(layer)).pending; }

protected:
    std::unique_ptr<KvLayout> copy_layout(KvRowDevice& device) const override {
        return std::unique_ptr<KvLayout>(new BatchSpliceLayout(*this, device));
    }
    int logical_rows(int layer) const override { return layers_[size_t(layer)].rows; }
    void insert_rows(int layer, int row, const NewRows& rows, int n) override;
    void remove_row(int layer, int row) override;
    void truncate_rows(int layer, int rows) override;
    void reset_rows() override;
    int physical_row(int layer, int row) const override;
    LayerContext layer_view(int layer, int rows) const override;

private:
    // The bookkeeping copied, the staged rows onto `device`.
    BatchSpliceLayout(const BatchSpliceLayout& other, KvRowDevice& device);
    struct Piece {
        bool staged = false;  // rows of the staging buffer, not of the slab
        int start = 0;
        int count = 0;
    };
    struct Layer {
        int rows = 0;          // logical
        int slab_rows = 0;     // valid slab rows [0, slab_rows); the pieces refer to them
        bool pending = false;  // false: logical row r is slab row r and `pieces` is unused
        std::vector<Piece> pieces;
    };
    // A layer's staged rows: [capacity][kv_dim] floats of K and of V, `rows` of them in use.
    struct Staged {
        DeviceBytes k, v;
        int rows = 0, capacity = 0;
    };

    // Index of the piece that starts at logical row `row` (pieces.size() for the end), splitting
    // the piece that contains it.
    static size_t split_at(Layer& layer, int row);
    // Turns "logical row r is slab row r" into the one-piece table it stands for.
    static void begin_edits(Layer& layer);
    bool prefix_untouched(const Layer& layer, int rows) const;
    // The one pass: every pending edit of the layer applied to the slab.
    void apply_pending(int layer) const;

    // Room for `rows` staged rows in the layer, those staged kept.
    void reserve_staged(Staged& s, int rows) const;

    mutable std::vector<Layer> layers_;
    mutable std::vector<Staged> staged_;  // [layer], on the slab's device
};

}  // namespace kvw
