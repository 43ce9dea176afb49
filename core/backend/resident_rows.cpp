#include "core/backend/resident_rows.h"

#include <algorithm>

#include "core/mirror/chunk_revisions.h"

namespace kvw {

namespace {

size_t row_bytes(KvType type, int kv_dim) { return size_t(kv_dim) * size_t(kv_type_bytes(type)); }
size_t scales_per_row(KvType type, int groups) { return kv_type_scaled(type) ? size_t(groups) : 0; }

}  // namespace

ResidentRows::ResidentRows(Backend& backend, size_t max_copies)
    : backend_(backend), max_copies_(std::max<size_t>(max_copies, 1)) {}

LayerContext ResidentRows::resident(const LayerContext& context, int kv_dim, int groups) {
    LayerContext out = context;
    const size_t extent = context.physical_extent();
    if (extent == 0) {
        out.k.data = out.v.data = nullptr;
        out.k.scale = out.v.scale = nullptr;
        return out;
    }
    Copy& copy = copy_for(context, kv_dim, groups);
    copy.last_read = ++reads_;
    reserve(copy, extent);

    // Rows [kept, extent) are uploaded in any case (new to the copy, or never read before);
    // below `kept`, the rows the revisions renewed since the copy's revision.
    const size_t kept = context.revisions ? std::min(copy.valid, extent) : 0;
    size_t first = kept;
    if (kept > 0) {
        const ChunkRevisions::RowSpan renewed =
            context.revisions->rows_renewed_since(copy.revision);
        if (!renewed.empty() && size_t(renewed.first) < kept) {
            const size_t end = std::min(size_t(renewed.end), kept);
            if (end == kept)
                first = size_t(renewed.first);  // one upload up to the extent
            else
                upload(copy, context, size_t(renewed.first), end);
        }
    }
    upload(copy, context, first, extent);
    copy.valid = extent;
    copy.revision = context.revisions ? context.revisions->latest() : 0;

    out.k = {copy.k.rows.data(), copy.k_type,
             copy.k.scales.empty() ? nullptr : copy.k.scales.data()};
    out.v = {copy.v.rows.data(), copy.v_type,
             copy.v.scales.empty() ? nullptr : copy.v.scales.data()};
    return out;
}

ResidentRows::Copy& ResidentRows::copy_for(const LayerContext& context, int kv_dim, int groups) {
    auto it = copies_.find(context.k.data);
    if (it != copies_.end()) {
        Copy& c = it->second;
        if (c.v_host == context.v.data && c.k_type == context.k.type &&
            c.v_type == context.v.type && c.kv_dim == kv_dim && c.groups == groups)
            return c;
        copies_.erase(it);  // other rows at that address: start again
    }
    if (copies_.size() >= max_copies_) evict_oldest();
    Copy c;
    c.v_host = context.v.data;
    c.k_type = context.k.type;
    c.v_type = context.v.type;
    c.kv_dim = kv_dim;
    c.groups = groups;
    return copies_.emplace(context.k.data, std::move(c)).first->second;
}

void ResidentRows::reserve(Copy& copy, size_t rows) {
    if (rows <= copy.capacity) return;
    // Half as much again each time, so that a cache filled a row at a time is copied within the
    // backend a logarithmic number of times.
    const size_t capacity = std::max(rows, copy.capacity + copy.capacity / 2);
    const auto grow = [&](Half& half, KvType type) {
        Half bigger{BackendArray<uint8_t>(backend_, capacity * row_bytes(type, copy.kv_dim)),
                    BackendArray<float>(backend_, capacity * scales_per_row(type, copy.groups))};
        if (copy.valid > 0) {
            backend_.copy(bigger.rows.data(), half.rows.data(),
                          copy.valid * row_bytes(type, copy.kv_dim));
            if (!bigger.scales.empty())
                backend_.copy(bigger.scales.data(), half.scales.data(),
                              copy.valid * scales_per_row(type, copy.groups) * sizeof(float));
        }
        half = std::move(bigger);
    };
    grow(copy.k, copy.k_type);
    grow(copy.v, copy.v_type);
    copy.capacity = capacity;
}

void ResidentRows::upload(Copy& copy, const LayerContext& context, size_t first, size_t end) {
    if (first >= end) return;
    const size_t n = end - first;
    const auto half = [&](Half& to, const KvRows& from) {
        const size_t bytes = row_bytes(from.type, copy.kv_dim);
        backend_.upload(to.rows.data() + first * bytes, from.row(first, copy.kv_dim), n * bytes);
        bytes_uploaded_ += n * bytes;
        if (const size_t scales = scales_per_row(from.type, copy.groups); scales > 0) {
            backend_.upload(to.scales.data() + first * scales, from.scale + first * scales,
                            n * scales * sizeof(float));
            bytes_uploaded_ += n * scales * sizeof(float);
        }
    };
    half(copy.k, context.k);
    half(copy.v, context.v);
}

void ResidentRows::evict_oldest() {
    const auto oldest = std::min_element(
        copies_.begin(), copies_.end(),
        [](const auto& a, const auto& b) { return a.second.last_read < b.second.last_read; });
    if (oldest != copies_.end()) copies_.erase(oldest);
}

}  // namespace kvw
