#pragma once
// Writing new rows into a layer (FT-022's update_kv_cache): n rows of kv_dim floats each for K
// and V, encoded into physical rows [at, at + n) with kv_encode_row, as RowBuffer::write does.
// One thread per (row, K or V). Each row's QuantStats goes to its own slot of `stats`; the host
// sums them in row order (so no atomics, and the same sums as RowBuffer's).
#include <cstdint>

#include "core/cache/cache_error.h"
#include "core/math/cache_plane.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct CacheWriteRows {
    CachePlanes planes;
    const float* src[2] = {};   // [n][kv_dim]: the new K rows, the new V rows
    QuantStats* stats[2] = {};  // [n]: what encoding row i of K / V met
    int at = 0;
    int n = 0;

    Launch shape() const { return cover_rows(size_t(n), 2); }
    KVW_HD void operator()(const At& a) const {
        const size_t i = a.x();
        if (i >= size_t(n)) return;
        const int h = int(a.y());
        const CachePlane& p = planes.kv[h];
        const size_t r = size_t(at) + i;
        QuantStats st;
        kv_encode_row(p.type, src[h] + i * size_t(p.kv_dim), p.kv_dim, p.groups, p.row(r),
                      p.scale(r), st);
        if (p.saturated) p.saturated[r] = uint32_t(st.saturated);
        stats[h][i] = st;
    }
};

// The body for writing n rows at position `at` of `layer` (the layer only names it in the
// error). Throws CapacityExceeded, naming the position and the capacity, when the rows do not
// fit: before anything is written, as KvLayout::check_room does.
inline CacheWriteRows cache_write_rows(int layer, const CachePlanes& planes, const float* k,
                                       const float* v, int at, int n, QuantStats* k_stats,
                                       QuantStats* v_stats) {
    for (const CachePlane& p : planes.kv) check_cache_plane(p, "written");
    const int capacity = planes.kv[0].capacity;
    if (planes.kv[1].capacity != capacity || planes.kv[0].kv_dim != planes.kv[1].kv_dim)
        throw std::invalid_argument("cache kernel: K and V planes of different shape");
    if (at < 0 || n < 0 || at > capacity)
        throw std::out_of_range("cache kernel: writing " + std::to_string(n) +
                                " rows at position " + std::to_string(at));
    if (n > capacity - at) throw CapacityExceeded(layer, at, n, capacity);
    if (n > 0 && (!k || !v || !k_stats || !v_stats))
        throw std::invalid_argument("cache kernel: rows written from or counted into nothing");
    return CacheWriteRows{planes, {k, v}, {k_stats, v_stats}, at, n};
}

}  // namespace kvw::kern
