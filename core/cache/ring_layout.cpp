#include "core/cache/ring_layout.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include <spdlog/spdlog.h>

namespace kvw {

namespace {

// Rows of a buffer that only a mode needs; the others get one row (RowBuffer wants capacity > 0).
int rows_if(bool needed, int capacity) { return needed ? capacity : 1; }

int mod(int64_t a, int m) { return int(((a % m) + m) % m); }

// The first row (of `row_bytes` each) where a and b differ, or -1.
int first_other_row(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                    size_t row_bytes) {
    for (size_t at = 0; at < a.size(); at += row_bytes)
        if (std::memcmp(a.data() + at, b.data() + at, row_bytes) != 0) return int(at / row_bytes);
    return -1;
}

std::string range_text(const RingRanges& r) {
    return "[" + std::to_string(r.tail_begin) + "," + std::to_string(r.tail_end) + ")+[" +
           std::to_string(r.head_begin) + "," + std::to_string(r.head_end) + ")";
}

}  // namespace

RingLayout::RingLayout(int n_layers, int kv_dim, int capacity, KvStorage storage,
                       RingOptions options, KvRowDevice& device)
    : KvLayout(n_layers, kv_dim, capacity, storage, device),
      options_((check_ring_options(options, capacity), options)),
      layers_(size_t(n_layers)),
      scratch_(n_layers, kv_dim, rows_if(options.mode != RingMode::Roll, capacity), storage,
               device),
      shadow_(n_layers, kv_dim, rows_if(options.checksum, capacity), storage, device) {
    if (options_.mode != RingMode::Lut) return;
    const int S = options_.sinks, R = ring_slots(), block = options_.tokens_per_block;
    for (int b = 0; b < R / block; ++b) {
        std::vector<int32_t> table(static_cast<size_t>(capacity));
        for (int j = 0; j < capacity; ++j)
            table[size_t(j)] = j < S ? j : S + mod(int64_t(b) * block + j - S, R);
        tables_.push_back(std::move(table));
    }
}

RingLayout::RingLayout(const RingLayout& other, KvRowDevice& device)
    : KvLayout(other),
      options_(other.options_),
      layers_(other.layers_),
      scratch_(other.scratch_, device),
      shadow_(other.shadow_, device),
      tables_(other.tables_),
      bytes_assembled_(other.bytes_assembled_) {}

uint64_t RingLayout::bytes() const {
    uint64_t table_bytes = 0;
    for (const std::vector<int32_t>& t : tables_) table_bytes += t.size() * sizeof(int32_t);
    return slab().bytes() + scratch_.bytes() + shadow_.bytes() + table_bytes;
}

int RingLayout::sink_rows(int layer) const {
    return std::min(options_.sinks, layers_.at(size_t(layer)).rows);
}

int RingLayout::write_pointer(int layer) const {
    return (state(layer).head + ring_rows(layer)) % ring_slots();
}

int RingLayout::physical_row(int layer, int row) const {
    return ring_slab_row(row, options_.sinks, layers_[size_t(layer)].head, ring_slots());
}

RingRanges RingLayout::read_ranges(int layer, int rows) const {
    const int n = rows < 0 ? this->rows(layer) : rows;
    const int S = options_.sinks;
    const int m = std::max(n - S, 0);  // ring rows read
    const int start = S + layers_[size_t(layer)].head;
    const int tail = std::min(m, capacity() - start);
    return RingRanges{start, start + tail, S, S + m - tail};
}

// ---- edits --------------------------------------------------------------------------------------

void RingLayout::insert_rows(int layer, int row, const NewRows& rows, int n) {
    RingLayerState& L = layers_[size_t(layer)];
    if (row < L.rows) {  // in the middle: as contiguous, once physical order is logical
        normalise(layer);
        slab().move(layer, row + n, row, L.rows - row);
        slab().write(layer, row, rows, n);
    } else {  // at the end: at the write pointer, wrapping once at the slab end
        const int p = physical_row(layer, row);
        const int first = std::min(n, capacity() - p);
        slab().write(layer, p, rows, first);
        slab().write(layer, options_.sinks, rows.from(first, kv_dim()), n - first);
    }
    if (options_.checksum) {
        shadow_.move(layer, row + n, row, L.rows - row);
        shadow_.write(layer, row, rows, n);
    }
    L.rows += n;
    L.offset += n;
    spdlog::debug("[KV-Profile] ring update layer={} new_len={} offset={} filled={} pointer={}",
                  layer, n, L.offset, L.rows, write_pointer(layer));
}

void RingLayout::remove_rows(int layer, int row, int n) {
    RingLayerState& L = layers_[size_t(layer)];
    if (options_.checksum) shadow_.move(layer, row, row + n, L.rows - row - n);
    if (row == sink_rows(layer) && row == options_.sinks) {
        drop_front(layer, n);
        return;
    }
    normalise(layer);
    slab().move(layer, row, row + n, L.rows - row - n);
    L.rows -= n;
    L.removed += n;
}

// The oldest ring rows leave. Roll shifts the rows kept towards the sinks (turning the ring
// back by n, so its head stays slot 0); Pointer and Lut advance the head. Lut turns back to a
// block boundary when the head left one.
void RingLayout::drop_front(int layer, int n) {
    RingLayerState& L = layers_[size_t(layer)];
    const int S = options_.sinks;
    const int left = ring_rows(layer) - n;
    L.dropped += n;
    L.rows -= n;
    if (options_.mode == RingMode::Roll) {
        slab().move(layer, S, S + n, left);
        L.rotated += n;
    } else {
        L.head = (L.head + n) % ring_slots();
    }
    if (left == 0) {  // an empty ring starts again at slot 0
        L.rotated += L.head;
        L.head = 0;
    }
    if (options_.mode == RingMode::Lut && L.head % options_.tokens_per_block != 0) {
        normalise(layer);
        ++L.realigns;
    }
}

void RingLayout::truncate_rows(int layer, int rows) {
    RingLayerState& L = layers_[size_t(layer)];
    L.removed += L.rows - rows;
    L.rows = rows;
    if (ring_rows(layer) == 0) {
        L.rotated += L.head;
        L.head = 0;
    }
}

void RingLayout::reset_rows() { std::fill(layers_.begin(), layers_.end(), RingLayerState{}); }

void RingLayout::normalise(int layer) {
    RingLayerState& L = layers_[size_t(layer)];
    if (L.head == 0) return;
    const int S = options_.sinks, m = ring_rows(layer);
    assemble(layer, L.rows);
    slab().copy_rows(layer, S, scratch_, S, m);
    slab().count_moved(uint64_t(m) * slab().slot_bytes());
    L.rotated += L.head;
    L.head = 0;
}

void RingLayout::rows_rewritten(int layer, int row, int n) {
    if (!options_.checksum) return;
    for (int r = row; r < row + n; ++r)
        shadow_.copy_rows(layer, r, slab(), physical_row(layer, r), 1);
}

// ---- reads
// ----------------------------------------------------------------------------------------

// Always the same three copies, whatever the pointer: the sinks, the tail part, the head part
// (an empty one copies nothing).
void RingLayout::assemble(int layer, int rows) const {
    const RingRanges r = read_ranges(layer, rows);
    const int s = std::min(options_.sinks, rows);
    const int tail = r.tail_end - r.tail_begin;
    scratch_.copy_rows(layer, 0, slab(), 0, s);
    scratch_.copy_rows(layer, s, slab(), r.tail_begin, tail);
    scratch_.copy_rows(layer, s + tail, slab(), r.head_begin, r.head_end - r.head_begin);
    bytes_assembled_ += uint64_t(rows) * slab().slot_bytes();
}

LayerContext RingLayout::window(int layer, int rows) const {
    switch (options_.mode) {
        case RingMode::Pointer: assemble(layer, rows); return scratch_.context(layer, rows);
        case RingMode::Lut:
            return slab().context(
                layer, rows,
                tables_[size_t(layers_[size_t(layer)].head / options_.tokens_per_block)].data());
        case RingMode::Roll: break;
    }
    return slab().context(layer, rows);
}

LayerContext RingLayout::layer_view(int layer, int rows) const {
    RingLayerState& L = layers_[size_t(layer)];
    L.last_read = read_ranges(layer, rows);
    if (spdlog::should_log(spdlog::level::debug))
        spdlog::debug(
            "[KV-Profile] ring read layer={} rows={} offset={} filled={} pointer={} "
            "assembled={}",
            layer, rows, L.offset, L.rows, write_pointer(layer), range_text(L.last_read));
    return window(layer, rows);
}

// ---- checks -------------------------------------------------------------------------------------

std::string RingLayout::check_pointer(int layer) const {
    const RingLayerState& L = state(layer);
    const int R = ring_slots();
    const int m = ring_rows(layer);
    if (m < 0 || m > R)
        return "ring rows " + std::to_string(m) + " outside [0, " + std::to_string(R) + "]";
    if (L.head < 0 || L.head >= R) return "head " + std::to_string(L.head) + " outside the ring";
    if (mod(L.dropped - L.rotated, R) != L.head)
        return "head " + std::to_string(L.head) + " but dropped " + std::to_string(L.dropped) +
               " - rotated " + std::to_string(L.rotated) + " is " +
               std::to_string(mod(L.dropped - L.rotated, R)) + " mod " + std::to_string(R);
    if (options_.mode == RingMode::Roll && L.head != 0)
        return "roll: head " + std::to_string(L.head) + " is not slot 0";
    if (options_.mode == RingMode::Lut && L.head % options_.tokens_per_block != 0)
        return "lut: head " + std::to_string(L.head) + " is not on a block of " +
               std::to_string(options_.tokens_per_block);
    if (L.offset - L.dropped - L.removed != L.rows)
        return "offset " + std::to_string(L.offset) + " - dropped " + std::to_string(L.dropped) +
               " - removed " + std::to_string(L.removed) + " is not the " + std::to_string(L.rows) +
               " rows held";
    return {};
}

std::string RingLayout::check_window(int layer) const {
    const int n = rows(layer);
    const RingRanges r = read_ranges(layer, n);
    const int tail = r.tail_end - r.tail_begin, head = r.head_end - r.head_begin;
    if (r.tail_begin != options_.sinks + state(layer).head || tail + head != ring_rows(layer) ||
        r.head_begin != options_.sinks || (head > 0 && r.tail_end != capacity()) ||
        r.tail_end > capacity())
        return "assembled ranges " + range_text(r) + " are not the " +
               std::to_string(ring_rows(layer)) + " ring rows from slot " +
               std::to_string(state(layer).head) + " in two contiguous parts";
    const std::vector<uint8_t> assembled = window_bytes(layer, n);
    const std::vector<int> slab_rows = physical_rows_of(layer, 0, n);
    std::vector<uint8_t> stored(assembled.size());
    slab().stored_rows(layer, slab_rows, stored.data());
    if (const int j = first_other_row(assembled, stored, slab().row_bytes()); j >= 0)
        return "assembled row " + std::to_string(j) + " (K/V or scales) is not slab row " +
               std::to_string(slab_rows[size_t(j)]);
    return {};
}

std::vector<uint8_t> RingLayout::window_bytes(int layer, int rows) const {
    const LayerContext ctx = window(layer, rows);
    std::vector<int> at(static_cast<size_t>(rows));
    for (int j = 0; j < rows; ++j) at[size_t(j)] = int(ctx.physical_row(j));
    // Pointer reads the scratch it assembled; Roll and Lut read the slab.
    const RowBuffer& read = options_.mode == RingMode::Pointer ? scratch_ : slab();
    std::vector<uint8_t> out(size_t(rows) * read.row_bytes());
    read.stored_rows(layer, at, out.data());
    return out;
}

std::string RingLayout::check_checksum(int layer) const {
    if (!options_.checksum) return {};
    const int n = rows(layer);
    const std::vector<uint8_t> assembled = window_bytes(layer, n);
    std::vector<int> shadow_rows(static_cast<size_t>(n));  // the shadow keeps them in roll order
    std::iota(shadow_rows.begin(), shadow_rows.end(), 0);
    std::vector<uint8_t> shadow(assembled.size());
    shadow_.stored_rows(layer, shadow_rows, shadow.data());
    if (const int j = first_other_row(assembled, shadow, shadow_.row_bytes()); j >= 0)
        return "assembled row " + std::to_string(j) + " differs from the shadow roll cache";
    return {};
}

}  // namespace kvw
