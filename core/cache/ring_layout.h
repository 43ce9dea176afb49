#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/cache/kv_layout.h"
#include "core/cache/ring_options.h"
#include "core/cache/ring_ranges.h"

namespace kvw {

// One ring layer's bookkeeping (docs/ARCHITECTURE.md §17). Counters run since the last reset.
struct RingLayerState {
    int rows = 0;          // logical rows: sinks, then ring rows
    int head = 0;          // ring slot (0 .. T - S - 1) of the oldest ring row
    int64_t offset = 0;    // rows written (appends and inserts): only grows
    int64_t dropped = 0;   // rows that left from the front of the ring (overwrites)
    int64_t removed = 0;   // rows that left otherwise (edits, truncation)
    int64_t rotated = 0;   // slots the ring was turned back to bring its head to slot 0
    int64_t realigns = 0;  // Lut: turns that brought the head back onto a block boundary
    RingRanges last_read;  // what the last view() of this layer assembled
};

// A fixed window of T = capacity rows per layer (docs/ARCHITECTURE.md §17; RingMode says how
// the rows sit in the slab). Logical rows [0, min(S, rows)) are the sinks at slab rows [0, S);
// ring row i (logical row S + i) sits at slab row S + (head + i) mod (T - S). The layout itself
// never overwrites: when a full ring is appended to, the StateManager first drops the oldest
// ring rows (remove_range at the first ring row), so the mirror and the ledger see them leave.
// Edits in the middle of the window work through the logical rows: Pointer and Lut first turn
// the ring so that its head is slot 0 (physical order == logical), then edit as contiguous does.
class RingLayout : public KvLayout {
public:
    RingLayout(int n_layers, int kv_dim, int capacity, KvStorage storage, RingOptions options,
               KvRowDevice& device = host_row_device());

    CacheLayout layout() const override { return CacheLayout::Ring; }
    const RingOptions& options() const { return options_; }
    uint64_t bytes() const override;
    // Ring rows sit anywhere in the slab once the head moved.
    int slab_rows_in_use(int) const override { return capacity(); }
    int ring_slots() const { return capacity() - options_.sinks; }  // T - S
    int sink_rows(int layer) const;                                 // min(S, rows)
    const RingLayerState& state(int layer) const { return layers_.at(size_t(layer)); }
    // The ring slot the next ring row goes to: (head + ring rows) mod (T - S).
    int write_pointer(int layer) const;
    // Full turns of the ring: rows overwritten / (T - S).
    int64_t wraps(int layer) const { return state(layer).dropped / ring_slots(); }
    // The ranges a read of the layer's first `rows` rows (all when < 0) assembles.
    RingRanges read_ranges(int layer, int rows = -1) const;
    // The slab as stored (rows by slab row, scales beside them: read through RowBuffer's
    // downloads) and where a logical row sits, for the UI Frame's view of the ring (RingFrame,
    // core/session/ring_frame.cpp).
    const RowBuffer& slab_buffer() const { return slab(); }
    int slab_row(int layer, int row) const { return physical_row(layer, row); }
    // K plus V values clipped when slab row `slab_row` was encoded (RowBuffer::k_saturated).
    uint32_t slab_saturated(int layer, int slab_row) const {
        return slab().k_saturated(layer, slab_row) + slab().v_saturated(layer, slab_row);
    }
    // Bytes copied into the scratch by reads and checks (Pointer); edits' traffic is
    // bytes_moved().
    uint64_t bytes_assembled() const { return bytes_assembled_; }

    // Guard checks (empty string: passed; else what failed). The pointer and counters agree;
    // the assembled window holds, row by row and scales included, the stored row the logical
    // index maps to, from two contiguous ranges, oldest -> newest.
    std::string check_pointer(int layer) const;
    std::string check_window(int layer) const;
    // With options().checksum: the assembled window equals the shadow roll copy bit for bit.
    std::string check_checksum(int layer) const;

protected:
    std::unique_ptr<KvLayout> copy_layout(KvRowDevice& device) const override {
        return std::unique_ptr<KvLayout>(new RingLayout(*this, device));
    }
    int logical_rows(int layer) const override { return layers_[size_t(layer)].rows; }
    void insert_rows(int layer, int row, const NewRows& rows, int n) override;
    void remove_row(int layer, int row) override { remove_rows(layer, row, 1); }
    void remove_rows(int layer, int row, int n) override;
    void truncate_rows(int layer, int rows) override;
    void reset_rows() override;
    int physical_row(int layer, int row) const override;
    LayerContext layer_view(int layer, int rows) const override;
    void rows_rewritten(int layer, int row, int n) override;

private:
    // The slab shared (KvLayout's copy), the scratch and the shadow copied onto `device`.
    RingLayout(const RingLayout& other, KvRowDevice& device);
    int ring_rows(int layer) const { return layers_[size_t(layer)].rows - sink_rows(layer); }
    // Copies the sinks and the two ring ranges of the first `rows` logical rows into scratch_.
    void assemble(int layer, int rows) const;
    // The stored bytes (RowBuffer::stored_rows) of the first `rows` logical rows as window()
    // gives them to the engine.
    std::vector<uint8_t> window_bytes(int layer, int rows) const;
    // The first `rows` logical rows as the engine reads them: the slab (Roll), the assembled
    // scratch (Pointer) or the slab through the head's index table (Lut).
    LayerContext window(int layer, int rows) const;
    // Turns the ring so that its head is slot 0 (through the scratch: two copies out, one back).
    void normalise(int layer);
    void drop_front(int layer, int n);

    RingOptions options_;
    // Mutable because a read records the ranges it assembled (last_read).
    mutable std::vector<RingLayerState> layers_;
    // Pointer: the window assembled in logical order; Lut: the normalisation buffer.
    mutable RowBuffer scratch_;
    // Checksum: the logical rows in roll order, kept by the same edits.
    RowBuffer shadow_;
    // Lut: table b maps logical row j to its slab row when the head is slot b * tokens_per_block.
    std::vector<std::vector<int32_t>> tables_;
    mutable uint64_t bytes_assembled_ = 0;
};

}  // namespace kvw
