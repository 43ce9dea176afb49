#include "core/cache/kv_layout.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/cache/cache_error.h"
#include "core/cache/row_runs.h"

namespace kvw {

namespace {

int64_t nonfinite(const float* scale, int n) {
    int64_t bad = 0;
    for (int i = 0; i < n; ++i) bad += std::isfinite(scale[i]) ? 0 : 1;
    return bad;
}

}  // namespace

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

std::vector<int> KvLayout::physical_rows_of(int layer, int row, int n) const {
    std::vector<int> out(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) out[size_t(i)] = physical_row(layer, row + i);
    return out;
}

int64_t KvLayout::scan_nonfinite_scales(int layer, int row, int n) const {
    // Checked before the rows are listed: every append of an unscaled cache comes here.
    if (!slab().scaled(false) && !slab().scaled(true)) return 0;
    return nonfinite_scales_of(layer, physical_rows_of(layer, row, n));
}

int64_t KvLayout::nonfinite_scales_of(int layer, std::span<const int> rows) const {
    if (!slab().scaled(false) && !slab().scaled(true)) return 0;
    std::vector<float> scales(rows.size() * size_t(storage().groups));
    int64_t bad = 0;
    for (const bool v : {false, true})
        if (slab().scaled(v)) {
            slab().row_scales(layer, v, rows, scales.data());
            bad += nonfinite(scales.data(), int(scales.size()));
        }
    return bad;
}

std::unique_ptr<KvLayout> KvLayout::clone(KvRowDevice& device) const {
    std::unique_ptr<KvLayout> copy = copy_layout(device);
    copy->slab_ =
        std::make_shared<RowBuffer>(dormant() ? slab().thawed(device) : RowBuffer(slab(), device));
    return copy;
}

std::unique_ptr<KvLayout> KvLayout::dormant_clone(const KvLayout* earlier) const {
    std::vector<int> rows_in_use;
    for (int l = 0; l < n_layers(); ++l) rows_in_use.push_back(slab_rows_in_use(l));
    // The copy's own buffers (a ring's scratch and shadow) stay on the host, with the blocks.
    std::unique_ptr<KvLayout> copy = copy_layout(host_row_device());
    copy->slab_ = std::make_shared<RowBuffer>(
        slab().frozen(rows_in_use, earlier ? &earlier->slab() : nullptr));
    return copy;
}

void KvLayout::check_room(int layer, int n) const {
    if (n > remaining(layer)) throw CapacityExceeded(layer, rows(layer), n, capacity());
}

void KvLayout::append(int layer, const NewRows& rows, int n) {
    insert(layer, this->rows(layer), rows, n);
}

void KvLayout::insert(int layer, int row, const NewRows& rows, int n) {
    check_room(layer, n);
    check_rows(layer, row, 0, this->rows(layer));
    if (n == 0) return;
    insert_rows(layer, row, rows, n);
    row_revisions_[size_t(layer)].renew_from(row);
    nonfinite_scales_[size_t(layer)] += scan_nonfinite_scales(layer, row, n);
}

void KvLayout::remove(int layer, int row) {
    check_rows(layer, row, 1, rows(layer));
    nonfinite_scales_[size_t(layer)] -= scan_nonfinite_scales(layer, row, 1);
    remove_row(layer, row);
    row_revisions_[size_t(layer)].renew_from(row);
}

void KvLayout::remove_range(int layer, int row, int n) {
    check_rows(layer, row, n, rows(layer));
    if (n == 0) return;
    nonfinite_scales_[size_t(layer)] -= scan_nonfinite_scales(layer, row, n);
    remove_rows(layer, row, n);
    row_revisions_[size_t(layer)].renew_from(row);
}

void KvLayout::remove_rows(int layer, int row, int n) {
    for (int i = 0; i < n; ++i) remove_row(layer, row);
}

void KvLayout::overwrite(int layer, int row, const float* k, const float* v, int n) {
    check_rows(layer, row, n, rows(layer));
    nonfinite_scales_[size_t(layer)] -= scan_nonfinite_scales(layer, row, n);
    for (int i = 0; i < n; ++i)
        slab().write(layer, physical_row(layer, row + i), NewRows{k, v}.from(i, kv_dim()), 1);
    rows_rewritten(layer, row, n);
    row_revisions_[size_t(layer)].renew_rows(row, row + n);
    nonfinite_scales_[size_t(layer)] += scan_nonfinite_scales(layer, row, n);
}

void KvLayout::truncate(int layer, int rows) {
    check_rows(layer, 0, rows, this->rows(layer));
    nonfinite_scales_[size_t(layer)] -=
        scan_nonfinite_scales(layer, rows, this->rows(layer) - rows);
    truncate_rows(layer, rows);
    row_revisions_[size_t(layer)].renew_from(rows);
}

void KvLayout::reset() {
    reset_rows();
    std::fill(nonfinite_scales_.begin(), nonfinite_scales_.end(), 0);
    for (ChunkRevisions& revisions : row_revisions_) revisions.renew_from(0);
}

void KvLayout::rerotate_k(int layer, std::span<const int32_t> delta, int head_dim,
                          const RopeParams& rope) {
    check_rows(layer, 0, int(delta.size()), rows(layer));
    if (head_dim <= 0 || head_dim % 2 != 0 || kv_dim() % head_dim != 0)
        throw std::invalid_argument("kv cache: head_dim " + std::to_string(head_dim) +
                                    " does not split kv_dim " + std::to_string(kv_dim()) +
                                    " into rotary heads");
    std::vector<int> changed, at;  // logical rows that move, and their slab rows
    std::vector<int32_t> by;
    for (int r = 0; r < int(delta.size()); ++r)
        if (delta[size_t(r)] != 0) {
            changed.push_back(r);
            at.push_back(physical_row(layer, r));
            by.push_back(delta[size_t(r)]);
        }
    if (changed.empty()) return;
    nonfinite_scales_[size_t(layer)] -= nonfinite_scales_of(layer, at);
    slab().rerotate_k(layer, at, by, head_dim, rope);
    for_each_run(changed, [&](int first, int n, size_t) {
        rows_rewritten(layer, first, n);
        row_revisions_[size_t(layer)].renew_rows(first, first + n);
    });
    nonfinite_scales_[size_t(layer)] += nonfinite_scales_of(layer, at);
}

void KvLayout::append_stored(int layer, const KvLayout& src) {
    const int n = src.rows(layer);
    check_room(layer, n);
    const int first = rows(layer);
    // The layout places the rows (zeros, which encode without a fault); then their stored bytes
    // replace them wherever they landed.
    const std::vector<float> zeros(size_t(n) * size_t(kv_dim()), 0.0f);
    append(layer, zeros.data(), zeros.data(), n);
    // Copied in runs consecutive on both sides: a call of the device each, not one a row.
    const std::vector<int> to = physical_rows_of(layer, first, n);
    const std::vector<int> from = src.physical_rows_of(layer, 0, n);
    for_each_joint_run(to, from, [&](size_t at, int run) {
        slab().copy_rows(layer, to[at], src.slab(), from[at], run);
    });
    rows_rewritten(layer, first, n);
    row_revisions_[size_t(layer)].renew_rows(first, first + n);
    nonfinite_scales_[size_t(layer)] += src.nonfinite_scales(layer);
}

void KvLayout::read_k(int layer, int row, float* out) const {
    check_rows(layer, row, 1, rows(layer));
    slab().read_k(layer, physical_row(layer, row), out);
}

void KvLayout::read_v(int layer, int row, float* out) const {
    check_rows(layer, row, 1, rows(layer));
    slab().read_v(layer, physical_row(layer, row), out);
}

void KvLayout::read_rows(int layer, int row, int n, float* k, float* v) const {
    check_rows(layer, row, n, rows(layer));
    const std::vector<int> at = physical_rows_of(layer, row, n);
    if (k) slab().read_rows(layer, false, at, k);
    if (v) slab().read_rows(layer, true, at, v);
}

void KvLayout::drift_rows(int layer, int row, int n, const NewRows& ref, float* k_out,
                          float* v_out) const {
    check_rows(layer, row, n, rows(layer));
    slab().drift_rows(layer, physical_rows_of(layer, row, n), ref, k_out, v_out);
}

void KvLayout::read_rows(int layer, std::span<const int> rows, float* k, float* v) const {
    std::vector<int> at;
    at.reserve(rows.size());
    for (int r : rows) {
        check_rows(layer, r, 1, this->rows(layer));
        at.push_back(physical_row(layer, r));
    }
    if (k) slab().read_rows(layer, false, at, k);
    if (v) slab().read_rows(layer, true, at, v);
}

std::vector<uint8_t> KvLayout::stored_row(int layer, int row) const {
    std::vector<uint8_t> out;
    append_stored_rows(layer, row, row + 1, out);
    return out;
}

void KvLayout::append_stored_rows(int layer, int first, int end, std::vector<uint8_t>& out) const {
    check_rows(layer, first, end - first, rows(layer));
    const size_t at = out.size();
    out.resize(at + size_t(end - first) * stored_row_bytes());  // one resize: the block's rows
    slab().stored_rows(layer, physical_rows_of(layer, first, end - first), out.data() + at);
}

void KvLayout::hash_stored_rows(std::span<const RowsToHash> streams) const {
    std::vector<std::vector<int>> physical;
    physical.reserve(streams.size());
    for (const RowsToHash& s : streams) {
        check_rows(s.layer, s.first, s.end - s.first, rows(s.layer));
        physical.push_back(physical_rows_of(s.layer, s.first, s.end - s.first));
    }
    std::vector<RowBuffer::RowsToHash> rows;
    rows.reserve(streams.size());
    for (size_t i = 0; i < streams.size(); ++i)
        rows.push_back({streams[i].layer, physical[i], streams[i].state});
    slab().hash_rows(rows);
}

LayerContext KvLayout::view(int layer, int rows) const {
    const int n = rows < 0 ? this->rows(layer) : rows;
    check_rows(layer, 0, n, this->rows(layer));
    LayerContext ctx = layer_view(layer, n);
    ctx.k_store = storage().k;
    ctx.v_store = storage().v;
    return ctx;
}

}  // namespace kvw
