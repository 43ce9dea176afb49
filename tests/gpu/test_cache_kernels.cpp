// The KV cache's CUDA launchers (kernels/cache_kernels.h) against host_launch of the same bodies
// (kernels/bodies/cache_*.h, checked against the CPU cache in tests/unit/test_cache_bodies.cpp):
// the same bits, the bodies being copies, integer maths and IEEE arithmetic compiled without FMA
// contraction (a NaN's sign and payload aside, see same_bits). The K-shift's cos / sin may differ
// in the last bit on the device: its F32 rows within one float ulp, quantised rows within one step
// of their format. Skips as a whole when the machine has no CUDA device.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/backend/backend_registry.h"
#include "core/cache/kv_storage.h"
#include "core/math/row_error.h"
#include "kernels/cache_kernels.h"
#include "kernels/device_buffer.h"
#include "kernels/launch/host_launch.h"
#include "tests/gpu/cuda_device.h"
#include "tests/unit/cache_planes.h"

using namespace kvw;
using cuda::DeviceBuffer;
using kern::host_launch;

namespace {

using test::kTypes;
using test::random_rows;
constexpr int kGroups = 4, kHeadDim = 10, kKvDim = kGroups * kHeadDim, kCapacity = 37;

template <class T>
DeviceBuffer upload(const std::vector<T>& v) {
    DeviceBuffer d;
    if (!v.empty()) d.copy_from_host(v.data(), v.size() * sizeof(T), nullptr);
    return d;
}

template <class T>
std::vector<T> download(const DeviceBuffer& d, size_t n) {
    std::vector<T> v(n);
    if (n > 0) d.copy_to_host(v.data(), n * sizeof(T), nullptr);
    return v;
}

// One plane's arrays on the host (tests/unit/cache_planes.h) and their copy on the device.
struct Plane {
    test::HostPlane h;
    DeviceBuffer d_data, d_scales, d_saturated;

    explicit Plane(KvType t) : h(t, kKvDim, kGroups, kCapacity) {}

    CachePlane host() { return h.view(); }
    CachePlane device() {
        return CachePlane{d_data.as<uint8_t>(),
                          d_scales.as<float>(),
                          d_saturated.as<uint32_t>(),
                          h.type,
                          h.kv_dim,
                          h.groups,
                          h.capacity};
    }
    void to_device() {
        d_data = upload(h.data);
        d_scales = upload(h.scales);
        d_saturated = upload(h.saturated);
    }
    // The device's arrays equal the host's, byte for byte.
    bool device_equals_host() const {
        return download<uint8_t>(d_data, h.data.size()) == h.data &&
               download<uint32_t>(d_saturated, h.saturated.size()) == h.saturated &&
               std::memcmp(download<float>(d_scales, h.scales.size()).data(), h.scales.data(),
                           h.scales.size() * sizeof(float)) == 0;
    }
};

struct Planes {
    Plane k, v;
    explicit Planes(KvType t) : k(t), v(test::other_type(t)) {}
    CachePlanes host() { return CachePlanes{{k.host(), v.host()}}; }
    CachePlanes device() { return CachePlanes{{k.device(), v.device()}}; }
    void to_device() {
        k.to_device();
        v.to_device();
    }
    bool device_equals_host() const { return k.device_equals_host() && v.device_equals_host(); }
};

bool same_stats(const std::vector<QuantStats>& a, const std::vector<QuantStats>& b) {
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].saturated != b[i].saturated || a[i].nan_inputs != b[i].nan_inputs) return false;
    return a.size() == b.size();
}

// The same bits, but for NaNs: a device's arithmetic gives the canonical NaN where the CPU keeps
// an operand's sign and payload (a stored FP8 NaN times its scale), which IEEE leaves open.
bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0 &&
            !(std::isnan(a[i]) && std::isnan(b[i])))
            return false;
    return true;
}

// The planes filled with rows written by the host body, the same bytes on the device.
void fill(Planes& p, std::mt19937& rng) {
    const std::vector<float> k = random_rows(rng, kCapacity, kKvDim);
    const std::vector<float> v = random_rows(rng, kCapacity, kKvDim);
    std::vector<QuantStats> st(static_cast<size_t>(kCapacity));
    host_launch(kern::cache_write_rows(0, p.host(), k.data(), v.data(), 0, kCapacity, st.data(),
                                       st.data()));
    p.to_device();
}

void wait_for_device() { KVW_CUDA_CHECK(cudaStreamSynchronize(nullptr)); }

}  // namespace

class TestCacheKernels : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (const std::string why = test::why_no_cuda(); !why.empty()) QSKIP(why.c_str());
    }

    void write_rows() {
        std::mt19937 rng(1);
        for (KvType t : kTypes) {
            Planes p(t);
            p.to_device();
            for (const auto& [at, n] : {std::pair{0, 1}, {1, kCapacity - 1}}) {
                const std::vector<float> k = random_rows(rng, n, kKvDim);
                const std::vector<float> v = random_rows(rng, n, kKvDim);
                std::vector<QuantStats> ks(static_cast<size_t>(n)), vs(static_cast<size_t>(n));
                host_launch(kern::cache_write_rows(0, p.host(), k.data(), v.data(), at, n,
                                                   ks.data(), vs.data()));
                const DeviceBuffer dk = upload(k), dv = upload(v);
                DeviceBuffer dks(size_t(n) * sizeof(QuantStats)),
                    dvs(size_t(n) * sizeof(QuantStats));
                cuda::write_kv_rows(0, p.device(), dk.as<float>(), dv.as<float>(), at, n,
                                    dks.as<QuantStats>(), dvs.as<QuantStats>(), nullptr);
                wait_for_device();
                QVERIFY2(p.device_equals_host(), kv_type_name(t));
                QVERIFY(same_stats(download<QuantStats>(dks, size_t(n)), ks));
                QVERIFY(same_stats(download<QuantStats>(dvs, size_t(n)), vs));
            }
            QVERIFY_THROWS_EXCEPTION(
                CapacityExceeded, cuda::write_kv_rows(0, p.device(), nullptr, nullptr, kCapacity, 1,
                                                      nullptr, nullptr, nullptr));
        }
    }

    void decode_rows() {
        std::mt19937 rng(2);
        for (KvType t : kTypes) {
            Planes p(t);
            fill(p, rng);
            std::vector<int32_t> index(static_cast<size_t>(kCapacity));
            for (int r = 0; r < kCapacity; ++r) index[size_t(r)] = kCapacity - 1 - r;
            const size_t n = size_t(kCapacity) * kKvDim;
            std::vector<float> hk(n), hv(n);
            host_launch(kern::cache_decode_rows(p.host(), index.data(), 0, kCapacity, hk.data(),
                                                hv.data()));
            const DeviceBuffer di = upload(index);
            DeviceBuffer dk(n * sizeof(float)), dv(n * sizeof(float));
            cuda::decode_kv_rows(p.device(), di.as<int32_t>(), 0, kCapacity, dk.as<float>(),
                                 dv.as<float>(), nullptr);
            wait_for_device();
            QVERIFY2(same_bits(download<float>(dk, n), hk), kv_type_name(t));
            QVERIFY2(same_bits(download<float>(dv, n), hv), kv_type_name(t));
        }
    }

    void gather_rows_through_a_scratch() {
        std::mt19937 rng(3);
        for (KvType t : kTypes) {
            Planes p(t), scratch(t);
            fill(p, rng);
            scratch.to_device();
            // A remove of row 4 (rows 5.. shift down), in place through the scratch.
            std::vector<int32_t> tail;
            for (int r = 5; r < kCapacity; ++r) tail.push_back(r);
            const CachePlanes hs = scratch.host();
            const kern::CacheGatherPlan plan = kern::cache_gather_rows(
                p.host(), 4, p.host(), tail.data(), 0, int(tail.size()), &hs);
            for (int i = 0; i < plan.steps; ++i) host_launch(plan.step[i]);
            const DeviceBuffer di = upload(tail);
            const CachePlanes ds = scratch.device();
            cuda::gather_kv_rows(p.device(), 4, p.device(), di.as<int32_t>(), 0, int(tail.size()),
                                 &ds, nullptr);
            wait_for_device();
            QVERIFY2(p.device_equals_host(), kv_type_name(t));
        }
    }

    void ring_index_and_roll() {
        std::mt19937 rng(4);
        const kern::RingShape ring{2, kCapacity - 2, 20, 30};
        for (KvType t : kTypes) {
            Planes p(t), scratch(t);
            fill(p, rng);
            scratch.to_device();
            std::vector<int32_t> index(static_cast<size_t>(ring.rows));
            const kern::CacheRingRoll roll =
                kern::cache_ring_roll(p.host(), ring, index.data(), scratch.host());
            host_launch(roll.index);
            for (int i = 0; i < roll.gather.steps; ++i) host_launch(roll.gather.step[i]);
            DeviceBuffer di(index.size() * sizeof(int32_t));
            cuda::ring_roll(p.device(), ring, di.as<int32_t>(), scratch.device(), nullptr);
            wait_for_device();
            QVERIFY2(p.device_equals_host(), kv_type_name(t));

            std::vector<int32_t> whole(static_cast<size_t>(ring.rows));
            host_launch(kern::cache_ring_index(ring, 0, ring.rows, whole.data()));
            cuda::ring_index(ring, 0, ring.rows, di.as<int32_t>(), nullptr);
            wait_for_device();
            QVERIFY(download<int32_t>(di, whole.size()) == whole);
        }
    }

    void kshift_within_an_ulp_or_a_step() {
        std::mt19937 rng(5);
        const std::vector<float> divisors{1.0f, 1.5f, 2.0f, 4.0f, 8.0f};  // head_dim 10
        const DeviceBuffer d_divisors = upload(divisors);
        for (KvType t : kTypes)
            for (RopeLayout layout : {RopeLayout::Interleaved, RopeLayout::HalfSplit}) {
                Planes host(t);
                fill(host, rng);
                std::vector<int32_t> delta(static_cast<size_t>(kCapacity));
                for (int32_t& d : delta) d = rng() % 5 == 0 ? 0 : int32_t(rng() % 9000) - 4500;
                const size_t n = size_t(kCapacity) * kKvDim;
                std::vector<float> scratch(n);
                std::vector<QuantStats> stats(static_cast<size_t>(kCapacity));
                RopeParams rope{10000.0f, layout, 1.0, divisors.data()};
                host_launch(kern::cache_kshift(host.k.host(), nullptr, 0, delta.data(), kCapacity,
                                               kHeadDim, rope, scratch.data(), stats.data()));
                rope.freq_divisors = d_divisors.as<float>();
                const DeviceBuffer dd = upload(delta);
                DeviceBuffer ds(n * sizeof(float)), dst(size_t(kCapacity) * sizeof(QuantStats));
                cuda::kshift_k_rows(host.k.device(), nullptr, 0, dd.as<int32_t>(), kCapacity,
                                    kHeadDim, rope, ds.as<float>(), dst.as<QuantStats>(), nullptr);
                wait_for_device();
                // Both decoded: F32 within one ulp, the others within a step of their type.
                Plane device(t);
                device.h.data = download<uint8_t>(host.k.d_data, device.h.data.size());
                device.h.scales = download<float>(host.k.d_scales, device.h.scales.size());
                std::vector<float> want(n), got(n);
                host_launch(kern::cache_decode_rows(CachePlanes{{host.k.host(), host.k.host()}},
                                                    nullptr, 0, kCapacity, want.data(),
                                                    want.data()));
                host_launch(kern::cache_decode_rows(CachePlanes{{device.host(), device.host()}},
                                                    nullptr, 0, kCapacity, got.data(), got.data()));
                for (int r = 0; r < kCapacity; ++r) {
                    const float* w = want.data() + size_t(r) * kKvDim;
                    const float* g = got.data() + size_t(r) * kKvDim;
                    for (int i = 0; i < kKvDim && t == KvType::F32; ++i)
                        QVERIFY2(w[i] == g[i] || std::nextafter(w[i], g[i]) == g[i] ||
                                     (std::isnan(w[i]) && std::isnan(g[i])),
                                 qPrintable(QString("row %1").arg(r)));
                    bool finite = true;
                    for (int i = 0; i < kKvDim; ++i) finite = finite && std::isfinite(w[i]);
                    if (finite)
                        QVERIFY2(relative_row_error(g, w, kKvDim) <= kv_type_drift_tolerance(t),
                                 qPrintable(QString("%1 row %2").arg(kv_type_name(t)).arg(r)));
                }
            }
    }

    void gist_pool() {
        std::mt19937 rng(6);
        const int rows = 37, dim = 112;
        std::vector<float> x = random_rows(rng, rows, dim);
        for (float& f : x)
            if (!std::isfinite(f)) f = 1.0f;
        std::vector<int32_t> offsets{0}, index;
        for (int span : {1, 3, 8, 37}) {
            for (int j = 0; j < span; ++j) index.push_back(int32_t(rng() % unsigned(rows)));
            offsets.push_back(int32_t(index.size()));
        }
        const int gists = int(offsets.size()) - 1;
        std::vector<float> want(size_t(gists) * dim);
        host_launch(
            kern::cache_gist_pool(x.data(), index.data(), offsets.data(), gists, dim, want.data()));
        const DeviceBuffer dx = upload(x), di = upload(index), doff = upload(offsets);
        DeviceBuffer dout(want.size() * sizeof(float));
        cuda::gist_pool(dx.as<float>(), di.as<int32_t>(), doff.as<int32_t>(), gists, dim,
                        dout.as<float>(), nullptr);
        wait_for_device();
        QVERIFY(same_bits(download<float>(dout, want.size()), want));
    }

    void drift_rows() {
        std::mt19937 rng(7);
        const int n = 37, dim = 112;
        std::vector<float> ref = random_rows(rng, n, dim), cached = ref;
        for (float& f : ref)
            if (!std::isfinite(f)) f = 0.5f;
        std::normal_distribution<float> noise(0.0f, 1e-3f);
        for (float& f : cached) f += noise(rng);
        std::vector<float> hk(static_cast<size_t>(n)), hv(static_cast<size_t>(n));
        host_launch(kern::cache_drift(cached.data(), ref.data(), ref.data(), cached.data(), n, dim,
                                      hk.data(), hv.data()));
        const DeviceBuffer dc = upload(cached), dr = upload(ref);
        DeviceBuffer dk(size_t(n) * sizeof(float)), dv(size_t(n) * sizeof(float));
        cuda::drift_rows(dc.as<float>(), dr.as<float>(), dr.as<float>(), dc.as<float>(), n, dim,
                         dk.as<float>(), dv.as<float>(), nullptr);
        wait_for_device();
        QVERIFY(same_bits(download<float>(dk, size_t(n)), hk));
        QVERIFY(same_bits(download<float>(dv, size_t(n)), hv));
    }

    void row_hashes() {
        std::mt19937 rng(8);
        for (KvType t : kTypes) {
            Planes p(t);
            fill(p, rng);
            // Runs of up to 8 rows in a reversing order, the last one short, an empty one among
            // them; each goes on from a state left with a different number of pending bytes.
            std::vector<int32_t> rows, ends;
            for (int r = kCapacity - 1; r >= 0; --r) {
                rows.push_back(r);
                if (r % 8 == 0) ends.push_back(int32_t(rows.size()));
                if (r == 16) ends.push_back(int32_t(rows.size()));
            }
            const int runs = int(ends.size());
            std::vector<Xxh64State> states(static_cast<size_t>(runs));
            for (int b = 0; b < runs; ++b) {
                std::vector<uint8_t> head(size_t(b) * 13 + 3);
                for (uint8_t& c : head) c = uint8_t(rng());
                states[size_t(b)].update(head.data(), head.size());
            }
            std::vector<Xxh64State> want = states;
            const std::vector<CachePlanes> host_planes(size_t(runs), p.host());
            host_launch(kern::cache_row_hashes(host_planes.data(), rows.data(), ends.data(),
                                               want.data(), runs));
            const std::vector<CachePlanes> device_planes(size_t(runs), p.device());
            const DeviceBuffer dp = upload(device_planes), dr = upload(rows), de = upload(ends);
            DeviceBuffer ds = upload(states);
            cuda::hash_row_runs(dp.as<CachePlanes>(), dr.as<int32_t>(), de.as<int32_t>(),
                                ds.as<Xxh64State>(), runs, nullptr);
            wait_for_device();
            const std::vector<Xxh64State> got = download<Xxh64State>(ds, want.size());
            for (int b = 0; b < runs; ++b)
                QVERIFY2(got[size_t(b)].digest() == want[size_t(b)].digest(), kv_type_name(t));
        }
    }
};

QTEST_GUILESS_MAIN(TestCacheKernels)
#include "test_cache_kernels.moc"
