#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "core/cache/kv_row_device.h"
#include "core/cache/kv_storage.h"
#include "core/engine/forward_types.h"
#include "core/mirror/chunk_revisions.h"

namespace kvw {

// The physical K and V rows of every layer in their storage types (KvStorage), token-major, a
// fixed capacity allocated once in a device's memory (KvRowDevice: the host's, or the one the
// engine's backend computes in); an int8 or FP8 row keeps its per-KV-head scales beside it.
// The rows are reached only through the device's calls, so the host never reads device memory:
// what it needs of the rows (a read, the stored bytes a digest hashes, the scales a check
// counts) is downloaded, run by run of consecutive physical rows.
// It knows nothing about which logical row a physical row holds (the layouts decide that); it
// only writes, moves and copies rows — the only calls that touch rows, so a row's scales cannot
// part from it — and counts the bytes of existing rows it moved so that layouts can be compared
// by traffic, not just by time.
//
// Every call that changes a physical row renews the revision of its block of kRevisionBlockRows
// physical rows, so that a checkpoint's frozen copy (frozen()) copies only the blocks that
// changed since the copy before it and shares the rest with it (ARCHITECTURE §16).
class RowBuffer {
public:
    RowBuffer(int n_layers, int kv_dim, int capacity, KvStorage storage = {},
              KvRowDevice& device = host_row_device());
    // A copy with every row, scale, counter, statistic and revision, on `device` (a frozen
    // buffer's copy shares its blocks).
    RowBuffer(const RowBuffer& other, KvRowDevice& device);
    RowBuffer(const RowBuffer& other) : RowBuffer(other, *other.device_) {}
    RowBuffer(RowBuffer&&) noexcept = default;
    RowBuffer& operator=(RowBuffer&&) noexcept = default;
    RowBuffer& operator=(const RowBuffer&) = delete;

    // A checkpoint's copy: each layer's physical rows [0, rows_in_use[layer]) in shared
    // read-only blocks of kRevisionBlockRows rows (the last one shorter), nothing else allocated.
    // A block of `earlier` (another frozen copy, or null) with the same layer, index and
    // revision, and at least as many rows, is shared, not copied: equal revisions mean equal
    // rows (core/mirror/revision.h). A frozen buffer is only copied, thawed or measured; its
    // rows are neither read nor written. Rows past those in use are not kept: like a layout's
    // rows past its own, they must not be read before they are written again.
    RowBuffer frozen(std::span<const int> rows_in_use, const RowBuffer* earlier) const;
    // A live buffer on `device` again: the whole slab, the frozen rows where they were,
    // revisions kept.
    RowBuffer thawed(KvRowDevice& device) const;
    bool is_frozen() const { return !frozen_.empty(); }
    // Calls `f(block, bytes)` once per block a frozen copy holds, `block` naming it (a checkpoint
    // store counts the blocks its copies share once).
    void for_each_frozen_block(const std::function<void(const void*, uint64_t)>& f) const;

    KvRowDevice& device() const { return *device_; }
    int n_layers() const { return n_layers_; }
    int kv_dim() const { return kv_dim_; }
    int capacity() const { return capacity_; }
    const KvStorage& storage() const { return storage_; }
    // Bytes of one K row plus one V row, scales included.
    size_t row_bytes() const { return k_.row_bytes() + v_.row_bytes(); }
    // Bytes allocated for every layer's rows: the slab's, or a frozen copy's blocks (those it
    // shares included).
    uint64_t bytes() const;
    // Bytes that travel with a row when it is moved or copied: row_bytes() and the row's clip
    // counters (counter_bytes). What bytes_moved() and a ring's bytes_assembled() count.
    size_t slot_bytes() const { return k_.slot_bytes() + v_.slot_bytes(); }

    // `rows` encoded into physical rows [row, row + n).
    void write(int layer, int row, const NewRows& rows, int n);
    // The K-shift of physical rows `rows` by delta[i] positions each (KvRowDevice::rerotate_k);
    // a row with delta 0 is left as stored.
    void rerotate_k(int layer, std::span<const int> rows, std::span<const int32_t> delta,
                    int head_dim, const RopeParams& rope);
    // K and V of physical rows [from, from + n) to [to, to + n), scales with them; the ranges
    // may overlap.
    void move(int layer, int to, int from, int n);
    // Physical rows [from, from + n) of `src`'s layer (same kv_dim and storage) to physical rows
    // [to, to + n) of this one's, bytes and scales as they are: no re-encoding. `src` is
    // another buffer (a layout's scratch or shadow), so the ranges do not overlap.
    void copy_rows(int layer, int to, const RowBuffer& src, int from, int n);

    // A row decoded to kv_dim floats.
    void read_k(int layer, int row, float* out) const { read_rows(layer, false, {&row, 1}, out); }
    void read_v(int layer, int row, float* out) const { read_rows(layer, true, {&row, 1}, out); }
    // The K (v = false) or V of physical rows `rows` decoded, [rows][kv_dim] floats to `out`.
    void read_rows(int layer, bool v, std::span<const int> rows, float* out) const;
    // Physical rows `rows` as stored, one after the other: K bytes, K scales, V bytes, V scales
    // (scales only when the type has them), row_bytes() a row, to `out` (host).
    void stored_rows(int layer, std::span<const int> rows, uint8_t* out) const;
    // Physical rows of a layer whose stored bytes (stored_rows' order) go on `state`.
    struct RowsToHash {
        int layer = 0;
        std::span<const int> rows;
        Xxh64State* state = nullptr;
    };
    // The drift of physical rows `rows` against `ref` (KvRowDevice::drift_rows).
    void drift_rows(int layer, std::span<const int> rows, const NewRows& ref, float* k_out,
                    float* v_out) const {
        device_->drift_rows(planes(layer), rows, ref, k_out, v_out);
    }
    // Each stream's rows hashed where they are, all in one call (KvRowDevice::hash_rows).
    void hash_rows(std::span<const RowsToHash> streams) const;
    // The K (v = false) or V scales of physical rows `rows`, [rows][groups] to `out` (host);
    // nothing for an unscaled type.
    void row_scales(int layer, bool v, std::span<const int> rows, float* out) const;
    bool scaled(bool v) const { return (v ? v_ : k_).scale_count() > 0; }
    // A layer's first `rows` rows as the engine reads them (KvLayout::view): row j at physical
    // row index[j] (j without an index), in the device's memory, with the revisions of the
    // physical rows.
    LayerContext context(int layer, int rows, const int32_t* index = nullptr) const {
        LayerContext ctx{rows, k_.rows(layer), v_.rows(layer), index};
        ctx.revisions = &revisions_[size_t(layer)];
        ctx.device = device_;
        return ctx;
    }

    // What encoding the layer's rows met since construction or the last clear_stats().
    const QuantStats& k_stats(int layer) const { return k_.stats[size_t(layer)]; }
    const QuantStats& v_stats(int layer) const { return v_.stats[size_t(layer)]; }
    void clear_stats();
    // Values clipped when a physical row's K / V was encoded as it is stored now: kept beside
    // the row and moved and copied with it, like its scales (0 for f32, which never clips).
    uint32_t k_saturated(int layer, int row) const { return saturated_at(k_, layer, row); }
    uint32_t v_saturated(int layer, int row) const { return saturated_at(v_, layer, row); }
    // Bytes of those counters per row of one layer (K and V, the types that can clip).
    static uint64_t counter_bytes(const KvStorage& storage);

    // Bytes of existing rows moved since construction (slot_bytes() a row), plus whatever a layout
    // adds with count_moved (its own bookkeeping traffic, e.g. an index shifted by an edit).
    uint64_t bytes_moved() const { return bytes_moved_; }
    void count_moved(uint64_t bytes) { bytes_moved_ += bytes; }

private:
    struct FrozenBlock;
    using FrozenLayer = std::vector<std::shared_ptr<const FrozenBlock>>;

    // K or V of every layer in one type, in the device's memory.
    struct Plane {
        KvType type = KvType::F32;
        int kv_dim = 0;
        int groups = 1;
        int capacity = 0;
        std::vector<DeviceBytes> data;       // [layer][capacity * element bytes]
        std::vector<DeviceBytes> scales;     // [layer][capacity * groups]; empty: unscaled
        std::vector<DeviceBytes> saturated;  // [layer][capacity] uint32; empty: f32
        std::vector<QuantStats> stats;       // [layer]

        static bool counts(KvType t) { return t != KvType::F32; }

        // capacity 0: nothing allocated (a frozen buffer's planes).
        Plane(KvRowDevice& device, KvType t, int n_layers, int kv_dim, int groups, int capacity);
        // `other`'s shape, statistics and, when it holds rows, its rows copied from `from`.
        Plane(KvRowDevice& device, const Plane& other, const KvRowDevice& from);
        size_t data_bytes() const { return size_t(kv_dim) * size_t(kv_type_bytes(type)); }
        size_t scale_count() const { return kv_type_scaled(type) ? size_t(groups) : 0; }
        size_t row_bytes() const { return data_bytes() + scale_count() * sizeof(float); }
        // Bytes of one row with its clip counter: what a frozen block holds per row and plane.
        size_t slot_bytes() const { return row_bytes() + (counts(type) ? sizeof(uint32_t) : 0); }
        uint64_t bytes() const;
        CachePlane view(int layer) const;
        KvRows rows(int layer) const;
        // Rows [first, first + n) of a layer as a frozen block holds them: their bytes, scales
        // and counters, each a range of device memory (empty where the type has none).
        struct Section {
            uint8_t* at = nullptr;
            size_t bytes = 0;
        };
        std::array<Section, 3> sections(int layer, int first, int n) const;
        void save(const KvRowDevice& device, int layer, int first, int n, uint8_t* out) const;
        void load(KvRowDevice& device, int layer, int first, int n, const uint8_t* in) const;
    };
    uint32_t saturated_at(const Plane& plane, int layer, int row) const;
    CachePlanes planes(int layer) const { return {{k_.view(layer), v_.view(layer)}}; }
    // Adds what encoding met, row by row, to a layer's statistics.
    static void count(Plane& plane, int layer, std::span<const QuantStats> rows);

    KvRowDevice* device_;
    int n_layers_;
    int kv_dim_;
    int capacity_;
    KvStorage storage_;
    // `shape`'s layers, capacity, storage, statistics and revisions, no rows allocated, a frozen
    // layer per layer to fill (frozen()).
    struct Empty {};
    RowBuffer(const RowBuffer& shape, Empty);

    // Physical rows [first, end) of a layer changed.
    void renew(int layer, int first, int end) { revisions_[size_t(layer)].renew_rows(first, end); }

    Plane k_;
    Plane v_;
    uint64_t bytes_moved_ = 0;
    std::vector<ChunkRevisions> revisions_;  // [layer], by physical row
    std::vector<FrozenLayer> frozen_;        // [layer][block]: a frozen copy's rows; else empty
};

}  // namespace kvw
