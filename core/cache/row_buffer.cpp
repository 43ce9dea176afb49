#include "core/cache/row_buffer.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <type_traits>

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

// Physical rows [first, first + rows) of one layer, K's slots then V's (Plane::save's form).
struct RowBuffer::FrozenBlock {
    uint64_t revision = 0;
    int rows = 0;
    std::vector<uint8_t> k_and_v;

    uint64_t bytes() const { return k_and_v.size(); }
};

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

template <class Self>
auto RowBuffer::Plane::sections(Self& plane, int layer, int first, int n) {
    using Byte = std::conditional_t<std::is_const_v<Self>, const uint8_t, uint8_t>;
    struct Section {
        Byte* at = nullptr;
        size_t bytes = 0;
    };
    const auto bytes_at = [](auto& v, size_t element) {
        return reinterpret_cast<Byte*>(v.data() + element);
    };
    const size_t l = size_t(layer), r = size_t(first), count = size_t(n);
    std::array<Section, 3> out{};
    out[0] = {bytes_at(plane.data[l], r * plane.data_bytes()), count * plane.data_bytes()};
    if (!plane.scales.empty())
        out[1] = {bytes_at(plane.scales[l], r * size_t(plane.groups)),
                  count * plane.scale_count() * sizeof(float)};
    if (!plane.saturated.empty())
        out[2] = {bytes_at(plane.saturated[l], r), count * sizeof(uint32_t)};
    return out;
}

void RowBuffer::Plane::save(int layer, int first, int n, uint8_t* out) const {
    for (const auto& s : sections(*this, layer, first, n)) {
        if (s.bytes > 0) std::memcpy(out, s.at, s.bytes);
        out += s.bytes;
    }
}

void RowBuffer::Plane::load(int layer, int first, int n, const uint8_t* in) {
    for (const auto& s : sections(*this, layer, first, n)) {
        if (s.bytes > 0) std::memcpy(s.at, in, s.bytes);
        in += s.bytes;
    }
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
      v_(storage.v, n_layers, kv_dim, storage.groups, capacity),
      revisions_(size_t(n_layers)) {}

RowBuffer::RowBuffer(const RowBuffer& shape, Empty)
    : n_layers_(shape.n_layers_),
      kv_dim_(shape.kv_dim_),
      capacity_(shape.capacity_),
      storage_(shape.storage_),
      k_(storage_.k, n_layers_, kv_dim_, storage_.groups, 0),
      v_(storage_.v, n_layers_, kv_dim_, storage_.groups, 0),
      bytes_moved_(shape.bytes_moved_),
      revisions_(shape.revisions_),
      frozen_(size_t(n_layers_)) {
    k_.stats = shape.k_.stats;
    v_.stats = shape.v_.stats;
}

RowBuffer RowBuffer::frozen(std::span<const int> rows_in_use, const RowBuffer* earlier) const {
    if (is_frozen()) throw std::logic_error("RowBuffer::frozen: the buffer is frozen already");
    if (rows_in_use.size() != size_t(n_layers_))
        throw std::invalid_argument("RowBuffer::frozen: rows in use for every layer expected");
    if (earlier && (!earlier->is_frozen() || earlier->n_layers_ != n_layers_)) earlier = nullptr;
    RowBuffer copy(*this, Empty{});
    const size_t k_slot = k_.slot_bytes(), slot = k_slot + v_.slot_bytes();
    for (int l = 0; l < n_layers_; ++l) {
        const int rows = std::clamp(rows_in_use[size_t(l)], 0, capacity_);
        FrozenLayer& blocks = copy.frozen_[size_t(l)];
        const FrozenLayer* before = earlier ? &earlier->frozen_[size_t(l)] : nullptr;
        for (int first = 0, b = 0; first < rows; first += kRevisionBlockRows, ++b) {
            const int n = std::min(kRevisionBlockRows, rows - first);
            const uint64_t revision = revisions_[size_t(l)].block(size_t(b));
            // An earlier block with more rows holds these as they are, and the rows past them
            // as the slab still holds them.
            if (before && size_t(b) < before->size() &&
                (*before)[size_t(b)]->revision == revision && (*before)[size_t(b)]->rows >= n) {
                blocks.push_back((*before)[size_t(b)]);
                continue;
            }
            auto block = std::make_shared<FrozenBlock>();
            block->revision = revision;
            block->rows = n;
            block->k_and_v.resize(size_t(n) * slot);
            k_.save(l, first, n, block->k_and_v.data());
            v_.save(l, first, n, block->k_and_v.data() + size_t(n) * k_slot);
            blocks.push_back(std::move(block));
        }
    }
    return copy;
}

RowBuffer RowBuffer::thawed() const {
    if (!is_frozen()) throw std::logic_error("RowBuffer::thawed: the buffer is not frozen");
    RowBuffer live(n_layers_, kv_dim_, capacity_, storage_);
    live.k_.stats = k_.stats;
    live.v_.stats = v_.stats;
    live.bytes_moved_ = bytes_moved_;
    live.revisions_ = revisions_;
    const size_t k_slot = k_.slot_bytes();
    for (int l = 0; l < n_layers_; ++l) {
        int first = 0;
        for (const auto& block : frozen_[size_t(l)]) {
            live.k_.load(l, first, block->rows, block->k_and_v.data());
            live.v_.load(l, first, block->rows,
                         block->k_and_v.data() + size_t(block->rows) * k_slot);
            first += kRevisionBlockRows;
        }
    }
    return live;
}

void RowBuffer::for_each_frozen_block(const std::function<void(const void*, uint64_t)>& f) const {
    for (const FrozenLayer& layer : frozen_)
        for (const auto& block : layer) f(block.get(), block->bytes());
}

void RowBuffer::write(int layer, int row, const float* k, const float* v, int n) {
    const size_t d = size_t(kv_dim_);
    for (int i = 0; i < n; ++i) {
        k_.write(layer, row + i, k + size_t(i) * d);
        v_.write(layer, row + i, v + size_t(i) * d);
    }
    renew(layer, row, row + n);
}

void RowBuffer::move(int layer, int to, int from, int n) {
    if (n <= 0 || to == from) return;
    k_.move(layer, to, from, n);
    v_.move(layer, to, from, n);
    renew(layer, to, to + n);
    bytes_moved_ += uint64_t(n) * slot_bytes();
}

void RowBuffer::copy_rows(int layer, int to, const RowBuffer& src, int from, int n) {
    if (n <= 0) return;
    if (src.kv_dim_ != kv_dim_ || src.storage_.k != storage_.k || src.storage_.v != storage_.v ||
        src.storage_.groups != storage_.groups)
        throw std::invalid_argument("kv cache: copying a row between different storages");
    k_.copy_rows(layer, to, src.k_, from, n);
    v_.copy_rows(layer, to, src.v_, from, n);
    renew(layer, to, to + n);
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
    for_each_frozen_block([&](const void*, uint64_t bytes) { sum += bytes; });
    return sum;
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
