#pragma once
// The K-shift (StateManager::reindex_layer): a K row whose rope position is not its row index is
// rotated by the difference, head by head (rope_rerotate), and stored again; a quantised K is
// decoded, rotated and encoded anew (new scales, new clip counter). V is not touched. One thread
// per row, which decodes into its own row of `scratch`.
#include <cstdint>

#include "core/math/cache_plane.h"
#include "core/math/kshift_row.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct CacheKShift {
    CachePlane k;
    const int32_t* index = nullptr;  // [n] physical rows, or null: first .. first + n - 1
    int first = 0;
    const int32_t* delta = nullptr;  // [n]: row - rope_pos; 0 leaves the row as stored
    int n = 0;
    int head_dim = 0;
    RopeParams rope;              // freq_divisors, when set, in the memory the body runs in
    float* scratch = nullptr;     // [n][kv_dim]
    QuantStats* stats = nullptr;  // [n]: what encoding row i met (zero for a row left alone)

    Launch shape() const { return cover(size_t(n)); }
    KVW_HD void operator()(const At& a) const {
        const size_t i = a.x();
        if (i >= size_t(n)) return;
        QuantStats st;
        if (delta[i] != 0)
            kshift_row(k, index ? size_t(index[i]) : size_t(first) + i, head_dim, delta[i], rope,
                       scratch + i * size_t(k.kv_dim), st);
        stats[i] = st;
    }
};

inline CacheKShift cache_kshift(const CachePlane& k, const int32_t* index, int first,
                                const int32_t* delta, int n, int head_dim, const RopeParams& rope,
                                float* scratch, QuantStats* stats) {
    check_cache_plane(k, "re-rotated");
    if (head_dim <= 0 || head_dim % 2 != 0 || k.kv_dim % head_dim != 0)
        throw std::invalid_argument("cache kernel: head_dim " + std::to_string(head_dim) +
                                    " does not split kv_dim " + std::to_string(k.kv_dim) +
                                    " into rotary heads");
    if (!index) check_plane_range(k, first, n, "re-rotated");
    if (n > 0 && (!delta || !scratch || !stats))
        throw std::invalid_argument("cache kernel: K-shift without deltas, scratch or stats");
    return CacheKShift{k, index, first, delta, n, head_dim, rope, scratch, stats};
}

}  // namespace kvw::kern
