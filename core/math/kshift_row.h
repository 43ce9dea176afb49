#pragma once
// The K-shift of one stored K row (StateManager::reindex_layer, docs/ARCHITECTURE.md §18): the
// row decoded into x (kv_dim floats), every head rotated by `delta` positions (rope_rerotate),
// and encoded again in place, with new scales and a new clip counter; what encoding met goes to
// `st`. V is not touched. The host's row device and the CUDA K-shift body both call it.
#include <cstddef>
#include <cstdint>

#include "core/math/cache_plane.h"
#include "core/math/kv_quant.h"
#include "core/math/rope.h"

namespace kvw {

KVW_HD void kshift_row(const CachePlane& k, size_t r, int head_dim, int32_t delta,
                       const RopeParams& rope, float* x, QuantStats& st) {
    kv_decode_row(k.type, k.row(r), k.scale(r), k.kv_dim, k.groups, x);
    for (int h = 0; h < k.kv_dim / head_dim; ++h)
        rope_rerotate(x + size_t(h) * size_t(head_dim), head_dim, double(delta), rope);
    kv_encode_row(k.type, x, k.kv_dim, k.groups, k.row(r), k.scale(r), st);
    if (k.saturated) k.saturated[r] = uint32_t(st.saturated);
}

}  // namespace kvw
