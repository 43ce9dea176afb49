#include "core/cache/kv_store.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/cache/cache_error.h"

namespace kvw {

KvStore::KvStore(int n_layers, int kv_dim, int capacity)
    : n_layers_(n_layers), kv_dim_(kv_dim), capacity_(capacity), rows_(size_t(n_layers), 0) {
    if (n_layers <= 0 || kv_dim <= 0 || capacity <= 0)
        throw std::invalid_argument("kv store: layers, kv_dim and capacity must be positive");
    const size_t floats = size_t(capacity) * size_t(kv_dim);
    k_.assign(size_t(n_layers), std::vector<float>(floats));
    v_.assign(size_t(n_layers), std::vector<float>(floats));
}

void KvStore::check_layer(int layer) const {
    if (layer < 0 || layer >= n_layers_)
        throw std::out_of_range("kv store: layer " + std::to_string(layer) + " of " +
                                std::to_string(n_layers_));
}

void KvStore::check_row(int layer, int row, int n, int limit) const {
    check_layer(layer);
    if (n < 0 || row < 0 || row + n > limit)
        throw std::out_of_range("kv store layer " + std::to_string(layer) + ": rows [" +
                                std::to_string(row) + ", " + std::to_string(row + n) +
                                ") outside [0, " + std::to_string(limit) + ")");
}

int KvStore::rows(int layer) const {
    check_layer(layer);
    return rows_[size_t(layer)];
}

void KvStore::check_room(int layer, int n) const {
    if (n > remaining(layer)) throw CapacityExceeded(layer, rows(layer), n, capacity_);
}

void KvStore::append(int layer, const float* k, const float* v, int n) {
    insert(layer, rows(layer), k, v, n);
}

void KvStore::insert(int layer, int row, const float* k, const float* v, int n) {
    check_room(layer, n);
    check_row(layer, row, 0, rows(layer));
    const size_t d = size_t(kv_dim_);
    const size_t tail = size_t(rows(layer) - row) * d;
    for (auto* buf : {&k_[size_t(layer)], &v_[size_t(layer)]}) {
        float* at = buf->data() + size_t(row) * d;
        std::memmove(at + size_t(n) * d, at, tail * sizeof(float));
    }
    rows_[size_t(layer)] += n;
    overwrite(layer, row, k, v, n);
}

void KvStore::remove(int layer, int row) {
    check_row(layer, row, 1, rows(layer));
    const size_t d = size_t(kv_dim_);
    const size_t tail = size_t(rows(layer) - row - 1) * d;
    for (auto* buf : {&k_[size_t(layer)], &v_[size_t(layer)]}) {
        float* at = buf->data() + size_t(row) * d;
        std::memmove(at, at + d, tail * sizeof(float));
    }
    rows_[size_t(layer)] -= 1;
}

void KvStore::overwrite(int layer, int row, const float* k, const float* v, int n) {
    check_row(layer, row, n, rows(layer));
    const size_t count = size_t(n) * size_t(kv_dim_);
    const size_t at = size_t(row) * size_t(kv_dim_);
    std::copy_n(k, count, k_[size_t(layer)].data() + at);
    std::copy_n(v, count, v_[size_t(layer)].data() + at);
}

void KvStore::truncate(int layer, int rows) {
    check_row(layer, 0, rows, this->rows(layer));
    rows_[size_t(layer)] = rows;
}

void KvStore::reset() { std::fill(rows_.begin(), rows_.end(), 0); }

float* KvStore::k_row(int layer, int row) {
    check_row(layer, row, 1, rows(layer));
    return k_[size_t(layer)].data() + size_t(row) * size_t(kv_dim_);
}

const float* KvStore::k_row(int layer, int row) const {
    check_row(layer, row, 1, rows(layer));
    return k_[size_t(layer)].data() + size_t(row) * size_t(kv_dim_);
}

const float* KvStore::v_row(int layer, int row) const {
    check_row(layer, row, 1, rows(layer));
    return v_[size_t(layer)].data() + size_t(row) * size_t(kv_dim_);
}

LayerContext KvStore::view(int layer, int rows) const {
    const int n = rows < 0 ? this->rows(layer) : rows;
    check_row(layer, 0, n, this->rows(layer));
    return LayerContext{n, k_[size_t(layer)].data(), v_[size_t(layer)].data()};
}

}  // namespace kvw
