#pragma once
// Stored rows back to floats (kv_decode_row, as RowBuffer::read_k / read_v): a Frame's or a
// checkpoint's read-back, and the drift's cached side. Row i of the output is physical row
// index[i] (first + i without an index: a layout's logical rows through its row map, or a
// contiguous range). One thread per (row, K or V).
#include <cstdint>

#include "core/math/cache_plane.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct CacheDecodeRows {
    CachePlanes planes;
    const int32_t* index = nullptr;  // [n] physical rows, or null: rows first .. first + n - 1
    int first = 0;
    int n = 0;
    float* out[2] = {};  // [n][kv_dim]: K, V

    Launch shape() const { return cover_rows(size_t(n), 2); }
    KVW_HD void operator()(const At& a) const {
        const size_t i = a.x();
        if (i >= size_t(n)) return;
        const int h = int(a.y());
        const CachePlane& p = planes.kv[h];
        const size_t r = index ? size_t(index[i]) : size_t(first) + i;
        kv_decode_row(p.type, p.row(r), p.scale(r), p.kv_dim, p.groups,
                      out[h] + i * size_t(p.kv_dim));
    }
};

// Physical rows named by `index` (the host has checked them: they are the layout's own row
// map) or rows [first, first + n).
inline CacheDecodeRows cache_decode_rows(const CachePlanes& planes, const int32_t* index, int first,
                                         int n, float* k_out, float* v_out) {
    for (const CachePlane& p : planes.kv) check_cache_plane(p, "decoded");
    if (!index) check_plane_range(planes.kv[0], first, n, "decoded");
    if (n > 0 && (!k_out || !v_out))
        throw std::invalid_argument("cache kernel: rows decoded into nothing");
    return CacheDecodeRows{planes, index, first, n, {k_out, v_out}};
}

}  // namespace kvw::kern
