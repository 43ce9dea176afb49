#include "core/cache/kv_store.h"

#include <algorithm>

namespace kvw {

KvStore::KvStore(int n_layers, int kv_dim, int capacity, KvStorage storage, KvRowDevice& device)
    : KvLayout(n_layers, kv_dim, capacity, storage, device), rows_(size_t(n_layers), 0) {}

void KvStore::insert_rows(int layer, int row, const NewRows& rows, int n) {
    int& held = rows_[size_t(layer)];
    slab().move(layer, row + n, row, held - row);
    slab().write(layer, row, rows, n);
    held += n;
}

void KvStore::remove_row(int layer, int row) {
    int& rows = rows_[size_t(layer)];
    slab().move(layer, row, row + 1, rows - row - 1);
    rows -= 1;
}

void KvStore::reset_rows() { std::fill(rows_.begin(), rows_.end(), 0); }

LayerContext KvStore::layer_view(int layer, int rows) const { return slab().context(layer, rows); }

}  // namespace kvw
