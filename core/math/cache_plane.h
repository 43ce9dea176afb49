#pragma once
// One layer's K or V rows as a RowBuffer keeps them in its device's memory (core/cache/
// row_buffer.h, core/cache/kv_row_device.h): `capacity` rows of kv_dim elements of `type`,
// token-major; beside each row its `groups` scales (int8 and FP8 only) and its clip counter
// (every type but F32), which travel with the row whenever it is copied. What the cache ops and
// the cache kernel bodies (kernels/bodies/cache_*.h) read and write. A plain view: the pointers
// are device memory on a device, host memory on the host and under host_launch.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/math/hd.h"
#include "core/math/kv_quant.h"

namespace kvw {

struct CachePlane {
    uint8_t* data = nullptr;        // [capacity][kv_dim] elements of `type`
    float* scales = nullptr;        // [capacity][groups] when kv_type_scaled(type); else null
    uint32_t* saturated = nullptr;  // [capacity] values clipped when the row was encoded;
                                    // null for F32 (which never clips), as RowBuffer keeps none
    KvType type = KvType::F32;
    int kv_dim = 0;
    int groups = 1;
    int capacity = 0;

    KVW_HD size_t data_bytes() const { return size_t(kv_dim) * size_t(kv_type_bytes(type)); }
    KVW_HD uint8_t* row(size_t r) const { return data + r * data_bytes(); }
    KVW_HD float* scale(size_t r) const { return scales ? scales + r * size_t(groups) : nullptr; }
    KVW_HD size_t scale_bytes() const { return scales ? size_t(groups) * sizeof(float) : 0; }
};

// The K and V planes of a layer: the bodies run over y = 0 (K) and y = 1 (V).
struct CachePlanes {
    CachePlane kv[2];
};

// Host-side checks the builders share: a plane whose arrays disagree with its type, or rows
// outside it, would make a body read or write past an allocation on the device, where nothing
// reports it.
inline void check_cache_plane(const CachePlane& p, const char* what) {
    const bool bad = !p.data || p.kv_dim <= 0 || p.groups <= 0 || p.kv_dim % p.groups != 0 ||
                     p.capacity < 0 || (kv_type_scaled(p.type) != (p.scales != nullptr)) ||
                     ((p.type != KvType::F32) != (p.saturated != nullptr));
    if (bad)
        throw std::invalid_argument(std::string("cache kernel: ") + what + " plane is malformed");
}

inline void check_plane_range(const CachePlane& p, int first, int n, const char* what) {
    if (n < 0 || first < 0 || first > p.capacity - n)
        throw std::out_of_range(std::string("cache kernel: ") + what + " rows [" +
                                std::to_string(first) + ", " + std::to_string(first + n) +
                                ") outside [0, " + std::to_string(p.capacity) + ")");
}

// Two planes holding rows of the same shape, so a row's bytes mean the same in both.
inline void check_same_plane_shape(const CachePlane& a, const CachePlane& b) {
    if (a.type != b.type || a.kv_dim != b.kv_dim || a.groups != b.groups)
        throw std::invalid_argument("cache kernel: copying rows between planes of different shape");
}

}  // namespace kvw
