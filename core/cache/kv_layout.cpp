#include "core/cache/kv_layout.h"

#include <stdexcept>
#include <string>

#include "core/cache/cache_error.h"

namespace kvw {

void KvLayout::check_layer(int layer) const {
    if (layer < 0 || layer >= n_layers())
        throw std::out_of_range("kv cache: layer " + std::to_string(layer) + " of " +
                                std::to_string(n_layers()));
}

void KvLayout::check_rows(int layer, int row, int n, int limit) const {
    check_layer(layer);
    if (n < 0 || row < 0 || row + n > limit)
        throw std::out_of_range("kv cache layer " + std::to_string(layer) + ": rows [" +
                                std::to_string(row) + ", " + std::to_string(row + n) +
                                ") outside [0, " + std::to_string(limit) + ")");
}

int KvLayout::rows(int layer) const {
    check_layer(layer);
    return logical_rows(layer);
}

int KvLayout::physical_rows(int layer) const { return rows(layer); }

void KvLayout::check_room(int layer, int n) const {
    if (n > remaining(layer)) throw CapacityExceeded(layer, rows(layer), n, capacity());
}

void KvLayout::append(int layer, const float* k, const float* v, int n) {
    insert(layer, rows(layer), k, v, n);
}

void KvLayout::insert(int layer, int row, const float* k, const float* v, int n) {
    check_room(layer, n);
    check_rows(layer, row, 0, rows(layer));
    if (n > 0) insert_rows(layer, row, k, v, n);
}

void KvLayout::remove(int layer, int row) {
    check_rows(layer, row, 1, rows(layer));
    remove_row(layer, row);
}

void KvLayout::overwrite(int layer, int row, const float* k, const float* v, int n) {
    check_rows(layer, row, n, rows(layer));
    const size_t d = size_t(kv_dim());
    for (int i = 0; i < n; ++i)
        slab_.write(layer, physical_row(layer, row + i), k + size_t(i) * d, v + size_t(i) * d, 1);
}

void KvLayout::truncate(int layer, int rows) {
    check_rows(layer, 0, rows, this->rows(layer));
    truncate_rows(layer, rows);
}

void KvLayout::reset() { reset_rows(); }

float* KvLayout::k_row(int layer, int row) {
    check_rows(layer, row, 1, rows(layer));
    return slab_.k(layer, physical_row(layer, row));
}

const float* KvLayout::k_row(int layer, int row) const {
    check_rows(layer, row, 1, rows(layer));
    return slab_.k(layer, physical_row(layer, row));
}

const float* KvLayout::v_row(int layer, int row) const {
    check_rows(layer, row, 1, rows(layer));
    return slab_.v(layer, physical_row(layer, row));
}

LayerContext KvLayout::view(int layer, int rows) const {
    const int n = rows < 0 ? this->rows(layer) : rows;
    check_rows(layer, 0, n, this->rows(layer));
    return layer_view(layer, n);
}

}  // namespace kvw
