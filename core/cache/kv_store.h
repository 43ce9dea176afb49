#pragma once
#include <vector>

#include "core/cache/kv_layout.h"

namespace kvw {

// The contiguous layout: a layer's logical row r is slab row r. Every insert and remove moves
// the rows after it with one memmove inside the capacity allocated once (ARCHITECTURE §4), so an
// edit costs the bytes of the rows behind it; nothing is ever deferred.
class KvStore : public KvLayout {
public:
    KvStore(int n_layers, int kv_dim, int capacity, KvStorage storage = {},
            KvRowDevice& device = host_row_device());

    CacheLayout layout() const override { return CacheLayout::Contiguous; }

protected:
    std::unique_ptr<KvLayout> copy_layout(KvRowDevice&) const override {
        return std::unique_ptr<KvLayout>(new KvStore(*this));
    }
    int logical_rows(int layer) const override { return rows_[size_t(layer)]; }
    void insert_rows(int layer, int row, const NewRows& rows, int n) override;
    void remove_row(int layer, int row) override;
    void truncate_rows(int layer, int rows) override { rows_[size_t(layer)] = rows; }
    void reset_rows() override;
    int physical_row(int, int row) const override { return row; }
    LayerContext layer_view(int layer, int rows) const override;

private:
    KvStore(const KvStore&) = default;
    std::vector<int> rows_;
};

}  // namespace kvw
