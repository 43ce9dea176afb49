#pragma once
// Rows copied through an index, as stored: out row out_first + i takes in row index[i] (in_first
// + i without an index), its bytes, scales and clip counter as they are, nothing re-encoded. Every
// cache edit that moves existing rows is one: a remove or an insert (the rows after the edit
// shift), indirection's compaction, batch-splice's pending edits, a LUT / indirection gather, the
// ring's pointer assembly and roll (cache_ring.h), append_stored's copy from another cache. One
// thread per (row, K or V), so `in` and `out` must not share rows: the builder goes through a
// scratch when they are the same planes.
#include <cstdint>

#include "core/math/cache_plane.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct CacheGatherRows {
    CachePlanes out;
    CachePlanes in;
    const int32_t* index = nullptr;  // [n] rows of `in`, or null: in_first .. in_first + n - 1
    int in_first = 0;
    int out_first = 0;
    int n = 0;

    Launch shape() const { return cover_rows(size_t(n), 2); }
    KVW_HD void operator()(const At& a) const {
        const size_t i = a.x();
        if (i >= size_t(n)) return;
        const int h = int(a.y());
        const CachePlane& o = out.kv[h];
        const CachePlane& s = in.kv[h];
        const size_t from = index ? size_t(index[i]) : size_t(in_first) + i;
        const size_t to = size_t(out_first) + i;
        const uint8_t* src = s.row(from);
        uint8_t* dst = o.row(to);
        for (size_t b = 0; b < o.data_bytes(); ++b) dst[b] = src[b];
        if (o.scales)
            for (int g = 0; g < o.groups; ++g) o.scale(to)[g] = s.scale(from)[g];
        if (o.saturated) o.saturated[to] = s.saturated[from];
    }
};

// One gather, or two when `in` and `out` are the same planes: into `scratch` (rows [0, n)) and
// from there to `out` in order. The launcher runs the steps in order on one stream.
struct CacheGatherPlan {
    CacheGatherRows step[2];
    int steps = 0;
};

inline bool shares_rows(const CachePlanes& a, const CachePlanes& b) {
    return a.kv[0].data == b.kv[0].data || a.kv[1].data == b.kv[1].data;
}

// `index` entries are rows of `in` below in's capacity (the caller's own row map: the host
// cannot read it on the device). `scratch`: planes of the same shape with at least n rows, used
// only when in and out are the same; may be null otherwise.
inline CacheGatherPlan cache_gather_rows(const CachePlanes& out, int out_first,
                                         const CachePlanes& in, const int32_t* index, int in_first,
                                         int n, const CachePlanes* scratch) {
    for (int h = 0; h < 2; ++h) {
        check_cache_plane(out.kv[h], "gathered-to");
        check_cache_plane(in.kv[h], "gathered-from");
        check_same_plane_shape(out.kv[h], in.kv[h]);
    }
    check_plane_range(out.kv[0], out_first, n, "gathered-to");
    check_plane_range(out.kv[1], out_first, n, "gathered-to");
    if (!index) {
        check_plane_range(in.kv[0], in_first, n, "gathered-from");
        check_plane_range(in.kv[1], in_first, n, "gathered-from");
    }
    CacheGatherPlan plan;
    if (n == 0) return plan;
    if (!shares_rows(out, in)) {
        plan.step[plan.steps++] = CacheGatherRows{out, in, index, in_first, out_first, n};
        return plan;
    }
    if (!scratch || shares_rows(*scratch, in))
        throw std::invalid_argument("cache kernel: gathering a plane into itself needs a scratch");
    for (int h = 0; h < 2; ++h) {
        check_cache_plane(scratch->kv[h], "scratch");
        check_same_plane_shape(scratch->kv[h], in.kv[h]);
        check_plane_range(scratch->kv[h], 0, n, "scratch");
    }
    plan.step[plan.steps++] = CacheGatherRows{*scratch, in, index, in_first, 0, n};
    plan.step[plan.steps++] = CacheGatherRows{out, *scratch, nullptr, 0, out_first, n};
    return plan;
}

}  // namespace kvw::kern
