#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "core/cache/cache_layout.h"
#include "core/cache/ring_options.h"
#include "core/cache/row_buffer.h"
#include "core/engine/forward_types.h"
#include "core/mirror/chunk_revisions.h"

namespace kvw {

// Per-layer K and V rows (kv_dim values a row, stored in the KvStorage types) as the logical
// sequence the mirror describes; where each logical row lives in the slab is the subclass's
// business (ARCHITECTURE §4, layouts). The public calls validate and then delegate, so every layout
// has the same contract:
//  - FT-022: a layer's position (its next write row) is its logical row count, starts at 0 and
//    advances by the rows written; prefill and decode both go through append(); no layer ever
//    holds more than capacity() logical rows, and a write past it throws CapacityExceeded before
//    anything changes. The slab is allocated once; edits never allocate it again.
//  - Row and layer arguments out of range throw std::out_of_range; callers (StateManager)
//    validate first, so these are programming errors.
//  - Reads (k_row, v_row, view) always see the logical rows as of the last edit.
class KvLayout {
public:
    virtual ~KvLayout() = default;
    KvLayout& operator=(const KvLayout&) = delete;

    virtual CacheLayout layout() const = 0;
    // An exact copy, the layout's own bookkeeping included (a ring's head and counters, dead
    // indirection rows, batch-splice's pending edits), live, its rows on `device`: a session
    // clone, a checkpoint restored (ARCHITECTURE §16) or the state moved to another backend
    // (§18). A dormant cache's copy gets its whole slab back.
    std::unique_ptr<KvLayout> clone(KvRowDevice& device) const;
    std::unique_ptr<KvLayout> clone() const { return clone(device()); }
    // A checkpoint's copy (ARCHITECTURE §16): the bookkeeping copied, the slab rows in use
    // frozen in blocks, each shared with `earlier` (another dormant copy, or null) when its rows
    // did not change since that one was made (RowBuffer::frozen). It is only cloned and measured.
    std::unique_ptr<KvLayout> dormant_clone(const KvLayout* earlier) const;
    bool dormant() const { return slab().is_frozen(); }
    // Where the rows live (the host for a dormant copy, whose blocks are host memory).
    KvRowDevice& device() const { return slab().device(); }
    // Bytes the layout holds: its slab (a dormant copy's blocks, those it shares included), and
    // the buffers and index tables a layout adds; what a clone takes.
    virtual uint64_t bytes() const { return slab().bytes(); }
    // A dormant copy's slab blocks, each once with its bytes (RowBuffer::for_each_frozen_block).
    void for_each_frozen_block(const std::function<void(const void*, uint64_t)>& f) const {
        slab().for_each_frozen_block(f);
    }
    int n_layers() const { return slab().n_layers(); }
    int kv_dim() const { return slab().kv_dim(); }
    int capacity() const { return slab().capacity(); }
    const KvStorage& storage() const { return slab().storage(); }
    int rows(int layer) const;
    int remaining(int layer) const { return capacity() - rows(layer); }
    // Slab rows the layer occupies now, live or not: rows() plus the dead rows indirection has
    // not compacted yet, or the rows batch-splice holds before its pending edits are applied.
    virtual int physical_rows(int layer) const;
    // Slab rows [0, n) hold every row the layout may still read (a dormant copy keeps them).
    virtual int slab_rows_in_use(int layer) const {
        return std::max(rows(layer), physical_rows(layer));
    }
    // Bytes of existing K/V rows (and index entries) moved by edits so far; see RowBuffer.
    uint64_t bytes_moved() const { return slab().bytes_moved(); }

    // Throws CapacityExceeded when `n` more rows do not fit in the layer.
    void check_room(int layer, int n) const;

    // Writes after the layer's last row.
    void append(int layer, const NewRows& rows, int n);
    // The new rows become rows [row, row + n); the rows from `row` on follow them.
    void insert(int layer, int row, const NewRows& rows, int n);
    // The same from host floats k, v: [n][kv_dim].
    void append(int layer, const float* k, const float* v, int n) { append(layer, {k, v}, n); }
    void insert(int layer, int row, const float* k, const float* v, int n) {
        insert(layer, row, {k, v}, n);
    }
    // Drops row `row`; the rows after it close the gap.
    void remove(int layer, int row);
    // Drops rows [row, row + n); the rows after them close the gap.
    void remove_range(int layer, int row, int n);
    // Replaces rows [row, row + n) in place; row + n <= rows.
    void overwrite(int layer, int row, const float* k, const float* v, int n);
    // Drops rows [rows, old rows) of the layer.
    void truncate(int layer, int rows);
    // Every layer back to position 0; the slab stays allocated.
    void reset();
    // The K-shift where the rows are: logical row r of [0, delta.size()) rotated by delta[r]
    // positions head by head and encoded again (RowBuffer::rerotate_k), V not touched; rows with
    // delta 0 stay as stored.
    void rerotate_k(int layer, std::span<const int32_t> delta, int head_dim,
                    const RopeParams& rope);
    // Appends the logical rows of `src`'s layer (same kv_dim and storage) as they are stored:
    // bytes and scales copied, nothing re-encoded.
    void append_stored(int layer, const KvLayout& src);

    // A logical row decoded to kv_dim floats.
    void read_k(int layer, int row, float* out) const;
    void read_v(int layer, int row, float* out) const;
    // Logical rows [row, row + n) decoded, [n][kv_dim] floats each to k and v (either may be
    // null): one read of the device for the lot, where a row at a time waits for it n times.
    void read_rows(int layer, int row, int n, float* k, float* v) const;
    // The drift map's numbers of logical rows [row, row + n) against `ref` (their reference
    // rows): K to k_out[i], V to v_out[i] (KvRowDevice::drift_rows), compared where they are.
    void drift_rows(int layer, int row, int n, const NewRows& ref, float* k_out,
                    float* v_out) const;
    // Logical rows `rows` (any order) decoded the same way, [rows.size()][kv_dim] floats each:
    // the rows a policy scores or a recorder keeps, one read for the lot.
    void read_rows(int layer, std::span<const int> rows, float* k, float* v) const;
    // A logical row as stored: K bytes, K scales, V bytes, V scales (scales only when the type
    // has them), downloaded: what the state digest hashes (hash_stored_rows), for comparing
    // caches byte for byte; append_stored_rows adds rows [first, end) so to `out`.
    std::vector<uint8_t> stored_row(int layer, int row) const;
    size_t stored_row_bytes() const { return slab().row_bytes(); }  // its size
    void append_stored_rows(int layer, int first, int end, std::vector<uint8_t>& out) const;
    // Logical rows [first, end) of a layer whose stored bytes (the bytes append_stored_rows
    // gives) go on `state`.
    struct RowsToHash {
        int layer = 0;
        int first = 0, end = 0;
        Xxh64State* state = nullptr;
    };
    // Each stream's rows hashed where they are, all of them in one call of the cache's device:
    // the state digest's read of the cache.
    void hash_stored_rows(std::span<const RowsToHash> streams) const;
    // Scales of the layer's logical rows that are NaN or infinite (0 for unscaled types),
    // counted as rows are written and dropped, so that the per-tick invariant and every Frame
    // read it without scanning the layer. Encoding keeps scales finite (kv_quant.h): a
    // non-finite one means stored bytes that bypassed it.
    int64_t nonfinite_scales(int layer) const { return nonfinite_scales_.at(size_t(layer)); }
    // The revision of the layer's logical rows [block * kRevisionBlockRows, (block + 1) * ...):
    // new whenever a public call writes, moves or drops one of them, in every layout, so that
    // the state digest rehashes only the blocks whose revision moved (ARCHITECTURE §6.1).
    uint64_t block_revision(int layer, size_t block) const {
        return row_revisions_.at(size_t(layer)).block(block);
    }
    // The newest of the layer's block revisions, and the rows that may have changed since it
    // was `since` (ChunkRevisions::rows_renewed_since).
    uint64_t rows_revision(int layer) const { return row_revisions_.at(size_t(layer)).latest(); }
    ChunkRevisions::RowSpan rows_renewed_since(int layer, uint64_t since) const {
        return row_revisions_.at(size_t(layer)).rows_renewed_since(since);
    }
    // What encoding met since construction: values clamped to the type's range, NaN inputs.
    const QuantStats& k_stats(int layer) const { return slab().k_stats(layer); }
    const QuantStats& v_stats(int layer) const { return slab().v_stats(layer); }

    // The first `rows` logical rows of a layer (all when rows < 0) as the engine reads them:
    // row j at physical row view.index[j], or j when the view has no index.
    LayerContext view(int layer, int rows = -1) const;

protected:
    KvLayout(int n_layers, int kv_dim, int capacity, KvStorage storage, KvRowDevice& device)
        : slab_(std::make_shared<RowBuffer>(n_layers, kv_dim, capacity, storage, device)),
          nonfinite_scales_(size_t(n_layers), 0),
          row_revisions_(size_t(n_layers)) {}
    // Only through clone() and dormant_clone(), which give the copy a slab of its own: the
    // copy constructor shares the slab, so that a dormant copy never copies the whole of it.
    KvLayout(const KvLayout&) = default;
    // The subclass's copy (its copy constructor), the slab still shared; buffers of its own
    // copied onto `device`.
    virtual std::unique_ptr<KvLayout> copy_layout(KvRowDevice& device) const = 0;

    // Called with validated arguments; rows(), room and ranges are already checked.
    virtual int logical_rows(int layer) const = 0;
    virtual void insert_rows(int layer, int row, const NewRows& rows, int n) = 0;
    virtual void remove_row(int layer, int row) = 0;
    // Row by row unless the layout moves a range more cheaply (the ring drops its oldest rows).
    virtual void remove_rows(int layer, int row, int n);
    virtual void truncate_rows(int layer, int rows) = 0;
    virtual void reset_rows() = 0;
    // The slab row holding logical row `row`.
    virtual int physical_row(int layer, int row) const = 0;
    virtual LayerContext layer_view(int layer, int rows) const = 0;
    // Logical rows [row, row + n) were rewritten in place (overwrite, rerotate_k,
    // append_stored), for a layout that keeps a second copy of them.
    virtual void rows_rewritten(int, int, int) {}

    // The slab rows of logical rows [row, row + n).
    std::vector<int> physical_rows_of(int layer, int row, int n) const;
    // Writable from const calls because batch-splice applies its pending edits on a read: the
    // logical rows, the only state a const caller can observe, stay the same.
    RowBuffer& slab() const { return *slab_; }

private:
    void check_layer(int layer) const;
    void check_rows(int layer, int row, int n, int limit) const;
    // Non-finite scales of logical rows [row, row + n), or of slab rows `rows`, read from the
    // slab.
    int64_t scan_nonfinite_scales(int layer, int row, int n) const;
    int64_t nonfinite_scales_of(int layer, std::span<const int> rows) const;

    std::shared_ptr<RowBuffer> slab_;            // this layout's alone but in copy_layout()'s copy
    std::vector<int64_t> nonfinite_scales_;      // [layer]: scan_nonfinite_scales of every row
    std::vector<ChunkRevisions> row_revisions_;  // [layer]
};

// `ring` is read by the Ring layout only; the rows live on `device`.
std::unique_ptr<KvLayout> make_kv_layout(CacheLayout layout, int n_layers, int kv_dim, int capacity,
                                         KvStorage storage = {}, RingOptions ring = {},
                                         KvRowDevice& device = host_row_device());

}  // namespace kvw
