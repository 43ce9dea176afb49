#include "core/cache/row_buffer.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace kvw {

RowBuffer::RowBuffer(int n_layers, int kv_dim, int capacity)
    : n_layers_(n_layers), kv_dim_(kv_dim), capacity_(capacity) {
    if (n_layers <= 0 || kv_dim <= 0 || capacity <= 0)
        throw std::invalid_argument("kv cache: layers, kv_dim and capacity must be positive");
    const size_t floats = size_t(capacity) * size_t(kv_dim);
    k_.assign(size_t(n_layers), std::vector<float>(floats));
    v_.assign(size_t(n_layers), std::vector<float>(floats));
}

void RowBuffer::write(int layer, int row, const float* k, const float* v, int n) {
    const size_t count = size_t(n) * size_t(kv_dim_);
    std::copy_n(k, count, this->k(layer, row));
    std::copy_n(v, count, this->v(layer, row));
}

void RowBuffer::move(int layer, int to, int from, int n) {
    if (n <= 0 || to == from) return;
    const size_t bytes = size_t(n) * row_bytes();
    std::memmove(k(layer, to), k(layer, from), bytes);
    std::memmove(v(layer, to), v(layer, from), bytes);
    bytes_moved_ += 2 * bytes;
}

}  // namespace kvw
