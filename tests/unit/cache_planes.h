#pragma once
// Shared by the tests of the cache's kernel bodies (test_cache_bodies, test_cache_reduction_bodies)
// and of their device launchers (tests/gpu/test_cache_kernels): the shapes and storage types they
// run over, a layer's K and V planes held on the host in the layout CachePlane describes,
// rows of the values encoding meets, and rows written by the write body.
#include <QString>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/cache/kv_layout.h"
#include "core/cache/kv_storage.h"
#include "kernels/bodies/cache_write.h"
#include "kernels/launch/host_launch.h"

namespace kvw::test {

inline constexpr KvType kTypes[] = {KvType::F32, KvType::F16, KvType::BF16, KvType::Int8,
                                    KvType::Fp8E4M3};

struct Shape {
    int groups;    // scale groups (the model's KV heads): 1, 4, 8
    int head_dim;  // kv_dim = groups * head_dim, never a multiple of 32
};
inline constexpr Shape kShapes[] = {{1, 6}, {4, 10}, {8, 14}};
inline constexpr int kCapacities[] = {1, 5, 37};

// One plane's arrays on the host, in the layout CachePlane describes.
struct HostPlane {
    std::vector<uint8_t> data;
    std::vector<float> scales;
    std::vector<uint32_t> saturated;
    KvType type = KvType::F32;
    int kv_dim = 0, groups = 1, capacity = 0;

    HostPlane(KvType t, int kv_dim_, int groups_, int capacity_)
        : data(size_t(capacity_) * size_t(kv_dim_) * size_t(kv_type_bytes(t))),
          scales(kv_type_scaled(t) ? size_t(capacity_) * size_t(groups_) : 0),
          saturated(t != KvType::F32 ? size_t(capacity_) : 0),
          type(t),
          kv_dim(kv_dim_),
          groups(groups_),
          capacity(capacity_) {}

    CachePlane view() {
        return CachePlane{data.data(),
                          scales.empty() ? nullptr : scales.data(),
                          saturated.empty() ? nullptr : saturated.data(),
                          type,
                          kv_dim,
                          groups,
                          capacity};
    }
    uint32_t saturated_at(int r) const { return saturated.empty() ? 0 : saturated[size_t(r)]; }
};

struct HostPlanes {
    HostPlane k, v;
    HostPlanes(const KvStorage& s, int kv_dim, int capacity)
        : k(s.k, kv_dim, s.groups, capacity), v(s.v, kv_dim, s.groups, capacity) {}
    CachePlanes view() { return CachePlanes{{k.view(), v.view()}}; }
};

// Values of every kind encoding meets: ordinary ones, ones beyond F16's and FP8's range
// (saturated), now and then an infinity or a NaN.
inline std::vector<float> random_rows(std::mt19937& rng, int n, int kv_dim) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> kind(0, 199);
    std::vector<float> x(size_t(n) * size_t(kv_dim));
    for (float& f : x) {
        const int k = kind(rng);
        f = normal(rng);
        if (k < 6) f *= 1e5f;  // past F16's 65504
        if (k == 6) f = std::numeric_limits<float>::infinity();
        if (k == 7) f = std::numeric_limits<float>::quiet_NaN();
    }
    return x;
}

inline std::vector<float> finite_rows(std::mt19937& rng, int n, int kv_dim) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(size_t(n) * size_t(kv_dim));
    for (float& f : x) f = normal(rng);
    return x;
}

inline KvStorage storage_of(KvType k, KvType v, int groups) { return KvStorage{k, v, groups}; }

// The second type every test pairs with a K type: V in another type than K.
inline KvType other_type(KvType t) { return kTypes[(int(t) + 2) % 5]; }

inline QString what(const KvStorage& s, int kv_dim, int capacity) {
    return QString("K %1, V %2, groups %3, kv_dim %4, capacity %5")
        .arg(kv_type_name(s.k))
        .arg(kv_type_name(s.v))
        .arg(s.groups)
        .arg(kv_dim)
        .arg(capacity);
}

// Writes rows [at, at + n) of both planes with the write body; returns the per-row stats.
struct WriteStats {
    std::vector<QuantStats> k, v;
};
inline WriteStats write_rows(HostPlanes& p, const float* k, const float* v, int at, int n) {
    WriteStats st{std::vector<QuantStats>(size_t(n)), std::vector<QuantStats>(size_t(n))};
    kern::host_launch(kern::cache_write_rows(0, p.view(), k, v, at, n, st.k.data(), st.v.data()));
    return st;
}

// Fills the planes with `rows` written rows (and the rows of a layout alike).
inline void fill(HostPlanes& p, KvLayout* layout, std::mt19937& rng, int rows) {
    const std::vector<float> k = random_rows(rng, rows, p.k.kv_dim);
    const std::vector<float> v = random_rows(rng, rows, p.k.kv_dim);
    write_rows(p, k.data(), v.data(), 0, rows);
    if (layout) layout->append(0, k.data(), v.data(), rows);
}

}  // namespace kvw::test
