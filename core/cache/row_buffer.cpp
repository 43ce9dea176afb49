#include "core/cache/row_buffer.h"

#include "core/cache/row_runs.h"

#include <algorithm>
#include <array>
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

// Physical rows [first, first + rows) of one layer, K's slots then V's (Plane::save's form).
struct RowBuffer::FrozenBlock {
    uint64_t revision = 0;
    int rows = 0;
    std::vector<uint8_t> k_and_v;

    uint64_t bytes() const { return k_and_v.size(); }
};

RowBuffer::Plane::Plane(KvRowDevice& device, KvType t, int n_layers, int kv_dim_, int groups_,
                        int capacity_)
    : type(t), kv_dim(kv_dim_), groups(groups_), capacity(capacity_), stats(size_t(n_layers)) {
    if (capacity == 0) return;
    for (int l = 0; l < n_layers; ++l) {
        data.emplace_back(device, size_t(capacity) * data_bytes());
        if (scale_count() > 0)
            scales.emplace_back(device, size_t(capacity) * scale_count() * sizeof(float));
        if (counts(t)) saturated.emplace_back(device, size_t(capacity) * sizeof(uint32_t));
    }
}

RowBuffer::Plane::Plane(KvRowDevice& device, const Plane& other, const KvRowDevice& from)
    : Plane(device, other.type, int(other.stats.size()), other.kv_dim, other.groups,
            other.data.empty() ? 0 : other.capacity) {
    capacity = other.capacity;
    stats = other.stats;
    const auto copy_all = [&](std::vector<DeviceBytes>& to, const std::vector<DeviceBytes>& src) {
        for (size_t l = 0; l < src.size(); ++l)
            transfer(device, to[l].as(), from, src[l].as(), src[l].bytes());
    };
    copy_all(data, other.data);
    copy_all(scales, other.scales);
    copy_all(saturated, other.saturated);
}

uint64_t RowBuffer::Plane::bytes() const {
    uint64_t sum = 0;
    for (const auto* arrays : {&data, &scales, &saturated})
        for (const DeviceBytes& a : *arrays) sum += a.bytes();
    return sum;
}

CachePlane RowBuffer::Plane::view(int layer) const {
    const size_t l = size_t(layer);
    return CachePlane{data[l].as<uint8_t>(),
                      scales.empty() ? nullptr : scales[l].as<float>(),
                      saturated.empty() ? nullptr : saturated[l].as<uint32_t>(),
                      type,
                      kv_dim,
                      groups,
                      capacity};
}

KvRows RowBuffer::Plane::rows(int layer) const {
    const CachePlane p = view(layer);
    return KvRows{p.data, type, p.scales};
}

std::array<RowBuffer::Plane::Section, 3> RowBuffer::Plane::sections(int layer, int first,
                                                                    int n) const {
    const CachePlane p = view(layer);
    const size_t r = size_t(first), count = size_t(n);
    std::array<Section, 3> out{};
    out[0] = {p.row(r), count * data_bytes()};
    if (p.scales) out[1] = {reinterpret_cast<uint8_t*>(p.scale(r)), count * p.scale_bytes()};
    if (p.saturated)
        out[2] = {reinterpret_cast<uint8_t*>(p.saturated + r), count * sizeof(uint32_t)};
    return out;
}

void RowBuffer::Plane::save(const KvRowDevice& device, int layer, int first, int n,
                            uint8_t* out) const {
    for (const Section& s : sections(layer, first, n)) {
        device.download(out, s.at, s.bytes);
        out += s.bytes;
    }
}

void RowBuffer::Plane::load(KvRowDevice& device, int layer, int first, int n,
                            const uint8_t* in) const {
    for (const Section& s : sections(layer, first, n)) {
        device.upload(s.at, in, s.bytes);
        in += s.bytes;
    }
}

uint32_t RowBuffer::saturated_at(const Plane& plane, int layer, int row) const {
    if (plane.saturated.empty()) return 0;
    uint32_t count = 0;
    device_->download(&count, plane.view(layer).saturated + row, sizeof(count));
    return count;
}

void RowBuffer::count(Plane& plane, int layer, std::span<const QuantStats> rows) {
    for (const QuantStats& row : rows) plane.stats[size_t(layer)].add(row);
}

RowBuffer::RowBuffer(int n_layers, int kv_dim, int capacity, KvStorage storage, KvRowDevice& device)
    : device_(&device),
      n_layers_(n_layers),
      kv_dim_(kv_dim),
      capacity_(capacity),
      storage_((check_shape(n_layers, kv_dim, capacity, storage), storage)),
      k_(device, storage.k, n_layers, kv_dim, storage.groups, capacity),
      v_(device, storage.v, n_layers, kv_dim, storage.groups, capacity),
      revisions_(size_t(n_layers)) {}

RowBuffer::RowBuffer(const RowBuffer& other, KvRowDevice& device)
    : device_(&device),
      n_layers_(other.n_layers_),
      kv_dim_(other.kv_dim_),
      capacity_(other.capacity_),
      storage_(other.storage_),
      k_(device, other.k_, *other.device_),
      v_(device, other.v_, *other.device_),
      bytes_moved_(other.bytes_moved_),
      revisions_(other.revisions_),
      frozen_(other.frozen_) {}

RowBuffer::RowBuffer(const RowBuffer& shape, Empty)
    : device_(&host_row_device()),  // a frozen copy's blocks are host memory
      n_layers_(shape.n_layers_),
      kv_dim_(shape.kv_dim_),
      capacity_(shape.capacity_),
      storage_(shape.storage_),
      k_(*device_, storage_.k, n_layers_, kv_dim_, storage_.groups, 0),
      v_(*device_, storage_.v, n_layers_, kv_dim_, storage_.groups, 0),
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
            k_.save(*device_, l, first, n, block->k_and_v.data());
            v_.save(*device_, l, first, n, block->k_and_v.data() + size_t(n) * k_slot);
            blocks.push_back(std::move(block));
        }
    }
    return copy;
}

RowBuffer RowBuffer::thawed(KvRowDevice& device) const {
    if (!is_frozen()) throw std::logic_error("RowBuffer::thawed: the buffer is not frozen");
    RowBuffer live(n_layers_, kv_dim_, capacity_, storage_, device);
    live.k_.stats = k_.stats;
    live.v_.stats = v_.stats;
    live.bytes_moved_ = bytes_moved_;
    live.revisions_ = revisions_;
    const size_t k_slot = k_.slot_bytes();
    for (int l = 0; l < n_layers_; ++l) {
        int first = 0;
        for (const auto& block : frozen_[size_t(l)]) {
            live.k_.load(device, l, first, block->rows, block->k_and_v.data());
            live.v_.load(device, l, first, block->rows,
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

void RowBuffer::write(int layer, int row, const NewRows& rows, int n) {
    if (n <= 0) return;
    std::vector<QuantStats> stats(2 * size_t(n));  // K's rows, then V's
    device_->write_rows(planes(layer), row, rows, n, stats.data(), stats.data() + n);
    count(k_, layer, std::span(stats).first(size_t(n)));
    count(v_, layer, std::span(stats).last(size_t(n)));
    renew(layer, row, row + n);
}

void RowBuffer::rerotate_k(int layer, std::span<const int> rows, std::span<const int32_t> delta,
                           int head_dim, const RopeParams& rope) {
    std::vector<QuantStats> stats(rows.size());
    device_->rerotate_k(k_.view(layer), rows, delta, head_dim, rope, stats.data());
    for (size_t i = 0; i < rows.size(); ++i)
        if (delta[i] != 0) {
            k_.stats[size_t(layer)].add(stats[i]);
            renew(layer, rows[i], rows[i] + 1);
        }
}

void RowBuffer::move(int layer, int to, int from, int n) {
    if (n <= 0 || to == from) return;
    device_->move_rows(planes(layer), to, from, n);
    renew(layer, to, to + n);
    bytes_moved_ += uint64_t(n) * slot_bytes();
}

void RowBuffer::copy_rows(int layer, int to, const RowBuffer& src, int from, int n) {
    if (n <= 0) return;
    if (src.kv_dim_ != kv_dim_ || src.storage_.k != storage_.k || src.storage_.v != storage_.v ||
        src.storage_.groups != storage_.groups)
        throw std::invalid_argument("kv cache: copying a row between different storages");
    if (src.device_ == device_) {
        device_->copy_rows(planes(layer), to, src.planes(layer), from, n);
    } else {  // another device's rows come through the host, as a frozen block holds them
        const size_t k_bytes = size_t(n) * k_.slot_bytes();
        std::vector<uint8_t> staged(k_bytes + size_t(n) * v_.slot_bytes());
        src.k_.save(*src.device_, layer, from, n, staged.data());
        src.v_.save(*src.device_, layer, from, n, staged.data() + k_bytes);
        k_.load(*device_, layer, to, n, staged.data());
        v_.load(*device_, layer, to, n, staged.data() + k_bytes);
    }
    renew(layer, to, to + n);
}

void RowBuffer::read_rows(int layer, bool v, std::span<const int> rows, float* out) const {
    device_->read_rows((v ? v_ : k_).view(layer), rows, out);
}

void RowBuffer::hash_rows(std::span<const RowsToHash> streams) const {
    std::vector<KvRowDevice::RowHash> on_device;
    on_device.reserve(streams.size());
    for (const RowsToHash& s : streams) on_device.push_back({planes(s.layer), s.rows, s.state});
    device_->hash_rows(on_device);
}

void RowBuffer::stored_rows(int layer, std::span<const int> rows, uint8_t* out) const {
    // Each plane's bytes and scales of a run come down in one strided call each, straight to
    // their place in the stored rows.
    const size_t row_size = row_bytes();
    for_each_run(rows, [&](int first, int n, size_t at) {
        size_t offset = 0;  // of this part within a stored row
        for (const Plane* plane : {&k_, &v_}) {
            const auto parts = plane->sections(layer, first, n);
            for (int part = 0; part < 2; ++part) {  // bytes, scales; counters are not stored
                const size_t each = parts[size_t(part)].bytes / size_t(n);
                if (each == 0) continue;
                device_->download_strided(out + at * row_size + offset, row_size,
                                          parts[size_t(part)].at, each, each, size_t(n));
                offset += each;
            }
        }
    });
}

void RowBuffer::row_scales(int layer, bool v, std::span<const int> rows, float* out) const {
    const Plane& plane = v ? v_ : k_;
    if (plane.scale_count() == 0) return;
    for_each_run(rows, [&](int first, int n, size_t at) {
        const Plane::Section scales = plane.sections(layer, first, n)[1];
        device_->download(out + at * plane.scale_count(), scales.at, scales.bytes);
    });
}

uint64_t RowBuffer::bytes() const {
    uint64_t sum = k_.bytes() + v_.bytes();
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
