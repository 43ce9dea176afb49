#pragma once
// Gist rows by mean pooling (the built-in gist, core/math/mean_pool.h): gist g is the mean of the
// rows index[offsets[g]] .. index[offsets[g + 1] - 1] of `rows`, summed in that order. One thread
// per (column, gist), which sums its column alone: the same bits as mean_pool_rows.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/math/mean_pool.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct CacheGistPool {
    const float* rows = nullptr;       // [*][dim]
    const int32_t* index = nullptr;    // rows pooled, gist after gist
    const int32_t* offsets = nullptr;  // [gists + 1]: gist g pools index[offsets[g], offsets[g+1])
    int gists = 0;
    int dim = 0;
    float* out = nullptr;  // [gists][dim]

    Launch shape() const { return cover_rows(size_t(dim), unsigned(gists)); }
    KVW_HD void operator()(const At& a) const {
        const size_t i = a.x();
        const size_t g = a.y();
        if (i >= size_t(dim) || g >= size_t(gists)) return;
        const int32_t* pooled = index + offsets[g];
        const float* base = rows;
        const size_t d = size_t(dim);
        out[g * d + i] = mean_pool_column([=](int j) { return base + size_t(pooled[j]) * d; },
                                          offsets[g + 1] - offsets[g], int(i));
    }
};

// `offsets` ascending from 0 and `index` naming rows of `rows` (host-checked where they live on
// the host; the caller's own gist plan otherwise). gists < 65,536 (the grid's y).
inline CacheGistPool cache_gist_pool(const float* rows, const int32_t* index,
                                     const int32_t* offsets, int gists, int dim, float* out) {
    if (gists < 0 || gists >= 65536 || dim < 0)
        throw std::invalid_argument("cache kernel: " + std::to_string(gists) + " gists of " +
                                    std::to_string(dim) + " floats");
    if (gists > 0 && dim > 0 && (!rows || !index || !offsets || !out))
        throw std::invalid_argument("cache kernel: gists pooled from or into nothing");
    return CacheGistPool{rows, index, offsets, gists, dim, out};
}

}  // namespace kvw::kern
