#pragma once
// The drift map's per-row number (StateManager::measure_drift): relative_row_error of each cached
// row (decoded to floats by cache_decode.h) against the reference pass's row, K and V. One thread
// per (row, K or V), reducing its row alone in index order: the same bits as the CPU's. Rows the
// cache and the reference do not both hold are the host's (infinite drift).
#include <stdexcept>

#include "core/math/row_error.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct CacheDrift {
    const float* cached[2] = {};  // [n][kv_dim]: K, V
    const float* ref[2] = {};     // [n][kv_dim]
    float* out[2] = {};           // [n]
    int n = 0;
    int kv_dim = 0;

    Launch shape() const { return cover_rows(size_t(n), 2); }
    KVW_HD void operator()(const At& a) const {
        const size_t i = a.x();
        if (i >= size_t(n)) return;
        const int h = int(a.y());
        const size_t at = i * size_t(kv_dim);
        out[h][i] = relative_row_error(cached[h] + at, ref[h] + at, kv_dim);
    }
};

inline CacheDrift cache_drift(const float* k_cached, const float* v_cached, const float* k_ref,
                              const float* v_ref, int n, int kv_dim, float* k_out, float* v_out) {
    if (n < 0 || kv_dim < 0) throw std::invalid_argument("cache kernel: negative drift shape");
    if (n > 0 && (!k_cached || !v_cached || !k_ref || !v_ref || !k_out || !v_out))
        throw std::invalid_argument("cache kernel: drift from or into nothing");
    return CacheDrift{{k_cached, v_cached}, {k_ref, v_ref}, {k_out, v_out}, n, kv_dim};
}

}  // namespace kvw::kern
