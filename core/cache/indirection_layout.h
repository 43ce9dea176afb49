#pragma once
#include <cstdint>
#include <vector>

#include "core/cache/kv_layout.h"

namespace kvw {

// Indirection: new rows are written once, after the layer's last used slab row, and never move
// on an edit; a per-layer index (int32 per logical row) gives the slab row of each logical row,
// so insert and remove shift 4-byte index entries instead of 2 * kv_dim * 4-byte K/V rows
// (ARCHITECTURE §4, layouts). Removed rows stay in the slab, dead, until a compaction: when more
// than `max_dead_fraction` of the used slab rows are dead, or when an insert finds no free slab
// row. Compaction closes the gaps in slab order (one pass towards row 0, in place) and renumbers
// the index; the logical rows do not change. The engine reads through view().index.
class IndirectionLayout : public KvLayout {
public:
    static constexpr double kMaxDeadFraction = 0.5;  // the default
    IndirectionLayout(int n_layers, int kv_dim, int capacity, KvStorage storage = {},
                      double max_dead_fraction = kMaxDeadFraction,
                      KvRowDevice& device = host_row_device());

    CacheLayout layout() const override { return CacheLayout::Indirection; }
    // Used slab rows, live and dead.
    int physical_rows(int layer) const override;
    uint64_t bytes() const override {
        return slab().bytes() + uint64_t(n_layers()) * uint64_t(capacity()) * sizeof(int32_t);
    }
    int64_t compactions() const { return compactions_; }

protected:
    std::unique_ptr<KvLayout> copy_layout(KvRowDevice&) const override {
        return std::unique_ptr<KvLayout>(new IndirectionLayout(*this));
    }
    int logical_rows(int layer) const override { return int(layers_[size_t(layer)].index.size()); }
    void insert_rows(int layer, int row, const NewRows& rows, int n) override;
    void remove_row(int layer, int row) override;
    void truncate_rows(int layer, int rows) override;
    void reset_rows() override;
    int physical_row(int layer, int row) const override;
    LayerContext layer_view(int layer, int rows) const override;

private:
    IndirectionLayout(const IndirectionLayout&) = default;
    struct Layer {
        int used = 0;                // slab rows [0, used) were written; the others are free
        std::vector<int32_t> index;  // logical row -> slab row; capacity reserved up front
    };

    void compact_if_fragmented(int layer);
    void compact(int layer);

    double max_dead_fraction_;
    std::vector<Layer> layers_;
    std::vector<int32_t> renumber_;  // compaction scratch: old slab row -> new, -1 when dead
    int64_t compactions_ = 0;
};

}  // namespace kvw
