#include "core/cache/row_buffer.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace kvw {

namespace {

void check_shape(int n_layers, int kv_dim, int capacity, const KvStorage& storage) {
    if (n_layers <= 0 || kv_dim <= 0 || capacity <= 0)
        throw std::invalid_argument("kv cache: layers, kv_dim and capacity must be positive");
    if (storage.groups <= 0 || kv_dim % storage.groups != 0)
        throw std::invalid_argument("kv cache: " + std::to_string(storage.groups) +
                                    " scale groups do not divide kv_dim " + std::to_string(kv_dim));
}

}  // namespace

RowBuffer::Plane::Plane(KvType t, int n_layers, int kv_dim_, int groups_, int capacity)
    : type(t), kv_dim(kv_dim_), groups(groups_), stats(size_t(n_layers)) {
    data.assign(size_t(n_layers), std::vector<uint8_t>(size_t(capacity) * data_bytes()));
    if (scale_count() > 0)
        scales.assign(size_t(n_layers), std::vector<float>(size_t(capacity) * scale_count()));
    if (counts(t)) saturated.assign(size_t(n_layers), std::vector<uint32_t>(size_t(capacity)));
}

void RowBuffer::Plane::write(int layer, int row, const float* x) {
    uint8_t* out = data[size_t(layer)].data() + size_t(row) * data_bytes();
    float* s = scales.empty() ? nullptr : scales[size_t(layer)].data() + size_t(row) * groups;
    QuantStats row_stats;
    kv_encode_row(type, x, kv_dim, groups, out, s, row_stats);
    stats[size_t(layer)].add(row_stats);
    if (!saturated.empty()) saturated[size_t(layer)][size_t(row)] = uint32_t(row_stats.saturated);
}

void RowBuffer::Plane::move(int layer, int to, int from, int n) {
    uint8_t* d = data[size_t(layer)].data();
    std::memmove(d + size_t(to) * data_bytes(), d + size_t(from) * data_bytes(),
                 size_t(n) * data_bytes());
    if (!saturated.empty()) {
        uint32_t* c = saturated[size_t(layer)].data();
        std::memmove(c + to, c + from, size_t(n) * sizeof(uint32_t));
    }
    if (scales.empty()) return;
    float* s = scales[size_t(layer)].data();
    std::memmove(s + size_t(to) * groups, s + size_t(from) * groups,
                 size_t(n) * scale_count() * sizeof(float));
}

void RowBuffer::Plane::copy_rows(int layer, int to, const Plane& src, int from, int n) {
    std::memcpy(data[size_t(layer)].data() + size_t(to) * data_bytes(),
                src.data[size_t(layer)].data() + size_t(from) * data_bytes(),
                size_t(n) * data_bytes());
    if (!saturated.empty())
        std::memcpy(saturated[size_t(layer)].data() + to,
                    src.saturated[size_t(layer)].data() + from, size_t(n) * sizeof(uint32_t));
    if (scales.empty()) return;
    std::memcpy(scales[size_t(layer)].data() + size_t(to) * groups,
                src.scales[size_t(layer)].data() + size_t(from) * groups,
                size_t(n) * scale_count() * sizeof(float));
}

void RowBuffer::Plane::read(int layer, int row, float* out) const {
    const KvRows r = rows(layer);
    kv_decode_row(type, r.row(size_t(row), kv_dim),
                  r.scale ? r.scale + size_t(row) * groups : nullptr, kv_dim, groups, out);
}

KvRows RowBuffer::Plane::rows(int layer) const {
    return KvRows{data[size_t(layer)].data(), type,
                  scales.empty() ? nullptr : scales[size_t(layer)].data()};
}

RowBuffer::RowBuffer(int n_layers, int kv_dim, int capacity, KvStorage storage)
    : n_layers_(n_layers),
      kv_dim_(kv_dim),
      capacity_(capacity),
      storage_((check_shape(n_layers, kv_dim, capacity, storage), storage)),
      k_(storage.k, n_layers, kv_dim, storage.groups, capacity),
      v_(storage.v, n_layers, kv_dim, storage.groups, capacity) {}

void RowBuffer::write(int layer, int row, const float* k, const float* v, int n) {
    const size_t d = size_t(kv_dim_);
    for (int i = 0; i < n; ++i) {
        k_.write(layer, row + i, k + size_t(i) * d);
        v_.write(layer, row + i, v + size_t(i) * d);
    }
}

void RowBuffer::move(int layer, int to, int from, int n) {
    if (n <= 0 || to == from) return;
    k_.move(layer, to, from, n);
    v_.move(layer, to, from, n);
    bytes_moved_ += uint64_t(n) * slot_bytes();
}

void RowBuffer::copy_rows(int layer, int to, const RowBuffer& src, int from, int n) {
    if (n <= 0) return;
    if (src.kv_dim_ != kv_dim_ || src.storage_.k != storage_.k || src.storage_.v != storage_.v ||
        src.storage_.groups != storage_.groups)
        throw std::invalid_argument("kv cache: copying a row between different storages");
    k_.copy_rows(layer, to, src.k_, from, n);
    v_.copy_rows(layer, to, src.v_, from, n);
}

void RowBuffer::read_k(int layer, int row, float* out) const { k_.read(layer, row, out); }
void RowBuffer::read_v(int layer, int row, float* out) const { v_.read(layer, row, out); }

uint64_t RowBuffer::bytes() const {
    uint64_t sum = 0;
    for (const Plane* p : {&k_, &v_}) {
        for (const std::vector<uint8_t>& d : p->data) sum += d.size();
        for (const std::vector<float>& s : p->scales) sum += s.size() * sizeof(float);
        for (const std::vector<uint32_t>& c : p->saturated) sum += c.size() * sizeof(uint32_t);
    }
    return sum;
}

void RowBuffer::resize_rows(int layer, int rows) {
    for (Plane* p : {&k_, &v_}) {
        std::vector<uint8_t>& d = p->data.at(size_t(layer));
        d.resize(size_t(rows) * p->data_bytes());
        d.shrink_to_fit();
        if (!p->saturated.empty()) {
            std::vector<uint32_t>& c = p->saturated[size_t(layer)];
            c.resize(size_t(rows));
            c.shrink_to_fit();
        }
        if (p->scales.empty()) continue;
        std::vector<float>& s = p->scales[size_t(layer)];
        s.resize(size_t(rows) * p->scale_count());
        s.shrink_to_fit();
    }
}

uint64_t RowBuffer::counter_bytes(const KvStorage& storage) {
    return (Plane::counts(storage.k) ? sizeof(uint32_t) : 0) +
           (Plane::counts(storage.v) ? sizeof(uint32_t) : 0);
}

void RowBuffer::clear_stats() {
    std::fill(k_.stats.begin(), k_.stats.end(), QuantStats{});
    std::fill(v_.stats.begin(), v_.stats.end(), QuantStats{});
}

}  // namespace kvw
