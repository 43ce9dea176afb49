// The KV cache's kernel bodies (kernels/bodies/cache_*.h), run over their grids on the CPU by
// host_launch through the same builders the CUDA launchers call, against the CPU cache they will
// replace (RowBuffer, the layouts, reindex_layer's decode / rope_rerotate / encode, mean_pool_rows,
// the state digest) and float64 loops written here; XXH64 against the Python xxhash package's
// digests. Shapes are awkward on purpose: one row, full capacity, widths that are not multiples
// of 32, every storage type, 1 / 4 / 8 scale groups.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/cache/cache_error.h"
#include "core/cache/kv_layout.h"
#include "core/cache/ring_layout.h"
#include "core/math/mean_pool.h"
#include "core/math/rope.h"
#include "core/math/xxh64.h"
#include "core/mirror/chunk_revisions.h"
#include "core/mirror/layer_map.h"
#include "core/state/state_digest.h"
#include "core/state/stream_hash.h"
#include "kernels/bodies/cache_decode.h"
#include "kernels/bodies/cache_digest.h"
#include "kernels/bodies/cache_drift.h"
#include "kernels/bodies/cache_gather.h"
#include "kernels/bodies/cache_gist.h"
#include "kernels/bodies/cache_kshift.h"
#include "kernels/bodies/cache_ring.h"
#include "kernels/bodies/cache_write.h"
#include "kernels/launch/host_launch.h"
#include "tests/testdata.h"

using namespace kvw;
using kern::CachePlane;
using kern::CachePlanes;
using kern::host_launch;

namespace {

constexpr KvType kTypes[] = {KvType::F32, KvType::F16, KvType::BF16, KvType::Int8, KvType::Fp8E4M3};

struct Shape {
    int groups;    // scale groups (the model's KV heads): 1, 4, 8
    int head_dim;  // kv_dim = groups * head_dim, never a multiple of 32
};
constexpr Shape kShapes[] = {{1, 6}, {4, 10}, {8, 14}};
constexpr int kCapacities[] = {1, 5, 37};

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

// A row as KvLayout::stored_row gives it: K bytes, K scales, V bytes, V scales.
std::vector<uint8_t> stored_row(HostPlanes& p, int r) {
    std::vector<uint8_t> out;
    for (HostPlane* h : {&p.k, &p.v}) {
        const CachePlane c = h->view();
        out.insert(out.end(), c.row(size_t(r)), c.row(size_t(r)) + c.data_bytes());
        if (c.scales) {
            const auto* s = reinterpret_cast<const uint8_t*>(c.scale(size_t(r)));
            out.insert(out.end(), s, s + c.scale_bytes());
        }
    }
    return out;
}

// Values of every kind encoding meets: ordinary ones, ones beyond F16's and FP8's range
// (saturated), now and then an infinity or a NaN.
std::vector<float> random_rows(std::mt19937& rng, int n, int kv_dim) {
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

std::vector<float> finite_rows(std::mt19937& rng, int n, int kv_dim) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(size_t(n) * size_t(kv_dim));
    for (float& f : x) f = normal(rng);
    return x;
}

KvStorage storage_of(KvType k, KvType v, int groups) { return KvStorage{k, v, groups}; }

// The second type every test pairs with a K type: V in another type than K.
KvType other_type(KvType t) { return kTypes[(int(t) + 2) % 5]; }

QString what(const KvStorage& s, int kv_dim, int capacity) {
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
WriteStats write_rows(HostPlanes& p, const float* k, const float* v, int at, int n) {
    WriteStats st{std::vector<QuantStats>(size_t(n)), std::vector<QuantStats>(size_t(n))};
    host_launch(kern::cache_write_rows(0, p.view(), k, v, at, n, st.k.data(), st.v.data()));
    return st;
}

QuantStats sum(const std::vector<QuantStats>& rows) {
    QuantStats s;
    for (const QuantStats& r : rows) s.add(r);
    return s;
}

bool same_stats(const QuantStats& a, const QuantStats& b) {
    return a.saturated == b.saturated && a.nan_inputs == b.nan_inputs;
}

// Plane row r against RowBuffer's physical row rb: bytes, scales and clip counter.
bool same_as_buffer(HostPlane& p, const KvRows& rows, uint32_t buffer_saturated, int r, int rb) {
    const CachePlane c = p.view();
    if (std::memcmp(c.row(size_t(r)), rows.row(size_t(rb), c.kv_dim), c.data_bytes()) != 0)
        return false;
    if (c.scales && std::memcmp(c.scale(size_t(r)), rows.scale + size_t(rb) * size_t(c.groups),
                                c.scale_bytes()) != 0)
        return false;
    return p.saturated_at(r) == buffer_saturated;
}

bool same_rows(HostPlanes& p, const RowBuffer& b, int first, int n, int b_first) {
    for (int i = 0; i < n; ++i) {
        if (!same_as_buffer(p.k, b.k_rows(0), b.k_saturated(0, b_first + i), first + i,
                            b_first + i))
            return false;
        if (!same_as_buffer(p.v, b.v_rows(0), b.v_saturated(0, b_first + i), first + i,
                            b_first + i))
            return false;
    }
    return true;
}

bool same_as_layout(HostPlanes& p, const KvLayout& layout, int first, int n, int layout_first) {
    for (int i = 0; i < n; ++i)
        if (stored_row(p, first + i) != layout.stored_row(0, layout_first + i)) return false;
    return true;
}

// Fills the planes with `rows` written rows (and the rows of a layout alike).
void fill(HostPlanes& p, KvLayout* layout, std::mt19937& rng, int rows) {
    const std::vector<float> k = random_rows(rng, rows, p.k.kv_dim);
    const std::vector<float> v = random_rows(rng, rows, p.k.kv_dim);
    write_rows(p, k.data(), v.data(), 0, rows);
    if (layout) layout->append(0, k.data(), v.data(), rows);
}

std::vector<unsigned char> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

class TestCacheBodies : public QObject {
    Q_OBJECT
private slots:
    // ---- write (FT-022's update_kv_cache) ---------------------------------------------------

    void written_rows_equal_row_buffer_writes() {
        std::mt19937 rng(1);
        for (KvType t : kTypes)
            for (const Shape& sh : kShapes)
                for (int capacity : kCapacities) {
                    const KvStorage s = storage_of(t, other_type(t), sh.groups);
                    const int kv_dim = sh.groups * sh.head_dim;
                    const QString w = what(s, kv_dim, capacity);
                    HostPlanes p(s, kv_dim, capacity);
                    RowBuffer b(1, kv_dim, capacity, s);
                    // One row at the end, then the whole capacity from row 0.
                    for (const auto& [at, n] : {std::pair{capacity - 1, 1}, {0, capacity}}) {
                        const std::vector<float> k = random_rows(rng, n, kv_dim);
                        const std::vector<float> v = random_rows(rng, n, kv_dim);
                        b.clear_stats();
                        b.write(0, at, k.data(), v.data(), n);
                        const WriteStats st = write_rows(p, k.data(), v.data(), at, n);
                        QVERIFY2(same_rows(p, b, at, n, at), qPrintable(w));
                        QVERIFY2(same_stats(sum(st.k), b.k_stats(0)), qPrintable(w));
                        QVERIFY2(same_stats(sum(st.v), b.v_stats(0)), qPrintable(w));
                    }
                }
    }

    void written_f32_rows_are_the_floats_and_stats_count_what_they_met() {
        // float64 reference of the stats: NaN inputs of F32 counted, nothing saturates.
        std::mt19937 rng(2);
        const int kv_dim = 40, n = 5;
        HostPlanes p(storage_of(KvType::F32, KvType::F16, 4), kv_dim, n);
        std::vector<float> k = random_rows(rng, n, kv_dim), v = finite_rows(rng, n, kv_dim);
        v[3] = 1e6f;  // F16 saturates: one clipped value in row 0
        const WriteStats st = write_rows(p, k.data(), v.data(), 0, n);
        QCOMPARE(std::memcmp(p.k.data.data(), k.data(), k.size() * sizeof(float)), 0);
        for (int r = 0; r < n; ++r) {
            uint64_t nans = 0;
            for (int i = 0; i < kv_dim; ++i) nans += std::isnan(k[size_t(r * kv_dim + i)]);
            QCOMPARE(st.k[size_t(r)].nan_inputs, nans);
            QCOMPARE(st.k[size_t(r)].saturated, uint64_t(0));
        }
        QCOMPARE(st.v[0].saturated, uint64_t(1));
        QCOMPARE(p.v.saturated_at(0), 1u);
    }

    // FT-022: the position starts at 0 and advances by the rows written; prefill and decode
    // write the same rows; earlier rows stay as they were across steps.
    void position_advances_and_rows_are_kept_across_steps() {
        std::mt19937 rng(3);
        for (KvType t : kTypes) {
            const KvStorage s = storage_of(t, other_type(t), 4);
            const int kv_dim = 40, capacity = 12;
            HostPlanes p(s, kv_dim, capacity);
            auto layout = make_kv_layout(CacheLayout::Contiguous, 1, kv_dim, capacity, s);
            QCOMPARE(layout->rows(0), 0);
            int position = 0;
            for (int n : {5, 1, 1, 3, 1}) {  // a prefill, then decode steps
                const std::vector<float> k = random_rows(rng, n, kv_dim);
                const std::vector<float> v = random_rows(rng, n, kv_dim);
                const std::vector<uint8_t> before = stored_row(p, 0);
                write_rows(p, k.data(), v.data(), layout->rows(0), n);
                layout->append(0, k.data(), v.data(), n);
                position += n;
                QCOMPARE(layout->rows(0), position);
                QCOMPARE(layout->remaining(0), capacity - position);
                QVERIFY(same_as_layout(p, *layout, 0, position, 0));
                QVERIFY(stored_row(p, 0) == before || position == n);
            }
        }
    }

    void prefill_equals_one_token_at_a_time() {
        std::mt19937 rng(4);
        for (KvType t : kTypes)
            for (const Shape& sh : kShapes) {
                const KvStorage s = storage_of(t, other_type(t), sh.groups);
                const int kv_dim = sh.groups * sh.head_dim, n = 9;
                const std::vector<float> k = random_rows(rng, n, kv_dim);
                const std::vector<float> v = random_rows(rng, n, kv_dim);
                HostPlanes prefill(s, kv_dim, n), decode(s, kv_dim, n);
                const WriteStats whole = write_rows(prefill, k.data(), v.data(), 0, n);
                QuantStats k_steps, v_steps;
                for (int i = 0; i < n; ++i) {
                    const size_t at = size_t(i) * size_t(kv_dim);
                    const WriteStats one = write_rows(decode, k.data() + at, v.data() + at, i, 1);
                    k_steps.add(one.k[0]);
                    v_steps.add(one.v[0]);
                }
                const QString w = what(s, kv_dim, n);
                for (int r = 0; r < n; ++r)
                    QVERIFY2(stored_row(prefill, r) == stored_row(decode, r), qPrintable(w));
                QVERIFY2(prefill.k.saturated == decode.k.saturated, qPrintable(w));
                QVERIFY2(same_stats(sum(whole.k), k_steps), qPrintable(w));
                QVERIFY2(same_stats(sum(whole.v), v_steps), qPrintable(w));
            }
    }

    void overflow_throws_naming_position_and_capacity_before_writing() {
        std::mt19937 rng(5);
        const KvStorage s = storage_of(KvType::Int8, KvType::F16, 1);
        const int kv_dim = 6, capacity = 5;
        HostPlanes p(s, kv_dim, capacity);
        auto layout = make_kv_layout(CacheLayout::Contiguous, 1, kv_dim, capacity, s);
        fill(p, layout.get(), rng, 4);
        const std::vector<uint8_t> data_before = p.k.data;
        const std::vector<float> rows = finite_rows(rng, 2, kv_dim);
        std::vector<QuantStats> st(2);
        try {
            kern::cache_write_rows(3, p.view(), rows.data(), rows.data(), 4, 2, st.data(),
                                   st.data());
            QFAIL("writing 2 rows at position 4 of 5 did not throw");
        } catch (const CapacityExceeded& e) {
            QCOMPARE(e.layer(), 3);
            QCOMPARE(e.position(), 4);
            QCOMPARE(e.requested(), 2);
            QCOMPARE(e.capacity(), 5);
            const std::string text = e.what();
            QVERIFY2(text.find("position 4") != std::string::npos, e.what());
            QVERIFY2(text.find("capacity of 5") != std::string::npos, e.what());
        }
        QVERIFY(p.k.data == data_before);
        // The layout's own check says the same for the same write.
        QVERIFY_THROWS_EXCEPTION(CapacityExceeded, layout->append(0, rows.data(), rows.data(), 2));
        // The last row fits; then the cache is full and even one row is refused.
        write_rows(p, rows.data(), rows.data(), 4, 1);
        QVERIFY_THROWS_EXCEPTION(CapacityExceeded,
                                 kern::cache_write_rows(0, p.view(), rows.data(), rows.data(), 5, 1,
                                                        st.data(), st.data()));
    }

    void reset_starts_again_at_position_zero() {
        std::mt19937 rng(6);
        const KvStorage s = storage_of(KvType::Fp8E4M3, KvType::BF16, 4);
        const int kv_dim = 40, capacity = 8;
        HostPlanes p(s, kv_dim, capacity);
        auto layout = make_kv_layout(CacheLayout::Contiguous, 1, kv_dim, capacity, s);
        fill(p, layout.get(), rng, capacity);
        layout->reset();
        QCOMPARE(layout->rows(0), 0);
        QCOMPARE(layout->remaining(0), capacity);
        const std::vector<float> k = random_rows(rng, 3, kv_dim);
        const std::vector<float> v = random_rows(rng, 3, kv_dim);
        write_rows(p, k.data(), v.data(), layout->rows(0), 3);
        layout->append(0, k.data(), v.data(), 3);
        QVERIFY(same_as_layout(p, *layout, 0, 3, 0));
    }

    // ---- decode --------------------------------------------------------------------------------

    void decoded_rows_equal_row_buffer_reads() {
        std::mt19937 rng(7);
        for (KvType t : kTypes)
            for (const Shape& sh : kShapes)
                for (int capacity : kCapacities) {
                    const KvStorage s = storage_of(t, other_type(t), sh.groups);
                    const int kv_dim = sh.groups * sh.head_dim;
                    HostPlanes p(s, kv_dim, capacity);
                    RowBuffer b(1, kv_dim, capacity, s);
                    const std::vector<float> k = random_rows(rng, capacity, kv_dim);
                    const std::vector<float> v = random_rows(rng, capacity, kv_dim);
                    b.write(0, 0, k.data(), v.data(), capacity);
                    write_rows(p, k.data(), v.data(), 0, capacity);
                    std::vector<int32_t> reversed;
                    for (int r = capacity - 1; r >= 0; --r) reversed.push_back(r);
                    std::vector<float> kd(k.size()), vd(v.size()),
                        want(static_cast<size_t>(kv_dim));
                    host_launch(kern::cache_decode_rows(p.view(), reversed.data(), 0, capacity,
                                                        kd.data(), vd.data()));
                    for (int i = 0; i < capacity; ++i) {
                        const size_t at = size_t(i) * size_t(kv_dim);
                        b.read_k(0, capacity - 1 - i, want.data());
                        QVERIFY(std::memcmp(kd.data() + at, want.data(), want.size() * 4) == 0);
                        b.read_v(0, capacity - 1 - i, want.data());
                        QVERIFY(std::memcmp(vd.data() + at, want.data(), want.size() * 4) == 0);
                    }
                    // Without an index: the last row alone.
                    host_launch(kern::cache_decode_rows(p.view(), nullptr, capacity - 1, 1,
                                                        kd.data(), vd.data()));
                    b.read_k(0, capacity - 1, want.data());
                    QVERIFY(std::memcmp(kd.data(), want.data(), want.size() * 4) == 0);
                }
    }

    // ---- gather ---------------------------------------------------------------------------------

    void gathered_rows_equal_row_buffer_copies() {
        std::mt19937 rng(8);
        for (KvType t : kTypes)
            for (const Shape& sh : kShapes) {
                const KvStorage s = storage_of(t, other_type(t), sh.groups);
                const int kv_dim = sh.groups * sh.head_dim, capacity = 37;
                HostPlanes src(s, kv_dim, capacity), dst(s, kv_dim, capacity);
                RowBuffer bsrc(1, kv_dim, capacity, s), bdst(1, kv_dim, capacity, s);
                const std::vector<float> k = random_rows(rng, capacity, kv_dim);
                const std::vector<float> v = random_rows(rng, capacity, kv_dim);
                write_rows(src, k.data(), v.data(), 0, capacity);
                bsrc.write(0, 0, k.data(), v.data(), capacity);
                // A LUT-like index, rows repeated and out of order, into rows [3, 3 + n).
                const int n = 30;
                std::vector<int32_t> index(static_cast<size_t>(n));
                for (int32_t& i : index) i = int32_t(rng() % unsigned(capacity));
                const kern::CacheGatherPlan plan =
                    kern::cache_gather_rows(dst.view(), 3, src.view(), index.data(), 0, n, nullptr);
                QCOMPARE(plan.steps, 1);
                host_launch(plan.step[0]);
                for (int i = 0; i < n; ++i) bdst.copy_rows(0, 3 + i, bsrc, index[size_t(i)], 1);
                QVERIFY2(same_rows(dst, bdst, 3, n, 3), qPrintable(what(s, kv_dim, capacity)));
            }
    }

    void removes_and_inserts_through_the_scratch_equal_the_layout() {
        std::mt19937 rng(9);
        for (KvType t : kTypes)
            for (const Shape& sh : kShapes) {
                const KvStorage s = storage_of(t, other_type(t), sh.groups);
                const int kv_dim = sh.groups * sh.head_dim, capacity = 37;
                const QString w = what(s, kv_dim, capacity);
                HostPlanes p(s, kv_dim, capacity), scratch(s, kv_dim, capacity);
                auto layout = make_kv_layout(CacheLayout::Contiguous, 1, kv_dim, capacity, s);
                fill(p, layout.get(), rng, 20);
                const CachePlanes scratch_view = scratch.view();
                // A plane into itself without a scratch is refused.
                QVERIFY_THROWS_EXCEPTION(
                    std::invalid_argument,
                    kern::cache_gather_rows(p.view(), 0, p.view(), nullptr, 1, 5, nullptr));
                // Remove row 4: rows 5.. shift down by one.
                std::vector<int32_t> tail;
                for (int r = 5; r < 20; ++r) tail.push_back(r);
                kern::CacheGatherPlan plan = kern::cache_gather_rows(
                    p.view(), 4, p.view(), tail.data(), 0, int(tail.size()), &scratch_view);
                QCOMPARE(plan.steps, 2);
                for (int i = 0; i < plan.steps; ++i) host_launch(plan.step[i]);
                layout->remove(0, 4);
                QVERIFY2(same_as_layout(p, *layout, 0, 19, 0), qPrintable(w));
                // Insert 3 rows at row 2: rows 2.. shift up by three, then the new rows.
                plan =
                    kern::cache_gather_rows(p.view(), 5, p.view(), nullptr, 2, 17, &scratch_view);
                for (int i = 0; i < plan.steps; ++i) host_launch(plan.step[i]);
                const std::vector<float> k = random_rows(rng, 3, kv_dim);
                const std::vector<float> v = random_rows(rng, 3, kv_dim);
                write_rows(p, k.data(), v.data(), 2, 3);
                layout->insert(0, 2, k.data(), v.data(), 3);
                QVERIFY2(same_as_layout(p, *layout, 0, 22, 0), qPrintable(w));
                // A range past the capacity is refused before anything runs.
                QVERIFY_THROWS_EXCEPTION(
                    std::out_of_range,
                    kern::cache_gather_rows(p.view(), 30, p.view(), nullptr, 0, 8, &scratch_view));
            }
    }

    // ---- ring -----------------------------------------------------------------------------------

    void ring_index_and_roll_equal_the_ring_layout() {
        std::mt19937 rng(10);
        for (KvType t : kTypes)
            for (const auto& [sinks, capacity, drop] :
                 {std::tuple{0, 1, 0}, {2, 9, 3}, {1, 37, 20}, {3, 37, 33}}) {
                const KvStorage s = storage_of(t, other_type(t), 4);
                const int kv_dim = 40;
                RingLayout ring(1, kv_dim, capacity, s, RingOptions{RingMode::Pointer, sinks});
                std::vector<float> k = random_rows(rng, capacity, kv_dim);
                std::vector<float> v = random_rows(rng, capacity, kv_dim);
                ring.append(0, k.data(), v.data(), capacity);
                if (drop > 0) {  // the oldest ring rows leave, new rows wrap around the slab
                    ring.remove_range(0, sinks, drop);
                    k = random_rows(rng, drop - 1, kv_dim);
                    v = random_rows(rng, drop - 1, kv_dim);
                    ring.append(0, k.data(), v.data(), drop - 1);
                }
                const QString w = QString("sinks %1, capacity %2, dropped %3, ")
                                      .arg(sinks)
                                      .arg(capacity)
                                      .arg(drop) +
                                  what(s, kv_dim, capacity);
                // The slab as the ring keeps it; K's clip counter holds K + V (what the ring
                // gives), V's 0, so the sum travels with each row.
                HostPlanes slab(s, kv_dim, capacity), scratch(s, kv_dim, capacity);
                for (int r = 0; r < capacity; ++r)
                    for (auto [plane, rows] :
                         {std::pair{&slab.k, ring.slab_k(0)}, {&slab.v, ring.slab_v(0)}}) {
                        const CachePlane c = plane->view();
                        std::memcpy(c.row(size_t(r)), rows.row(size_t(r), kv_dim), c.data_bytes());
                        if (c.scales)
                            std::memcpy(c.scale(size_t(r)), rows.scale + size_t(r) * 4,
                                        c.scale_bytes());
                        if (c.saturated)
                            c.saturated[r] = plane == &slab.k ? ring.slab_saturated(0, r) : 0;
                    }
                const RingLayerState& st = ring.state(0);
                const kern::RingShape shape{sinks, ring.ring_slots(), st.head, st.rows};
                QVERIFY2(drop == 0 || st.head != 0, qPrintable(w));  // the ring has turned

                std::vector<int32_t> index(static_cast<size_t>(st.rows));
                host_launch(kern::cache_ring_index(shape, 0, st.rows, index.data()));
                for (int r = 0; r < st.rows; ++r)
                    QVERIFY2(index[size_t(r)] == ring.slab_row(0, r), qPrintable(w));

                const kern::CacheRingRoll roll =
                    kern::cache_ring_roll(slab.view(), shape, index.data(), scratch.view());
                host_launch(roll.index);
                for (int i = 0; i < roll.gather.steps; ++i) host_launch(roll.gather.step[i]);
                for (int r = 0; r < st.rows; ++r) {
                    QVERIFY2(stored_row(slab, r) == ring.stored_row(0, r), qPrintable(w));
                    QVERIFY2(slab.k.saturated_at(r) + slab.v.saturated_at(r) ==
                                 ring.slab_saturated(0, ring.slab_row(0, r)),
                             qPrintable(w));
                }
            }
    }

    // ---- K-shift --------------------------------------------------------------------------------

    void kshift_equals_reindex_decode_rerotate_encode() {
        std::mt19937 rng(11);
        const float divisors[] = {1.0f, 1.0f, 1.5f, 2.0f, 4.0f, 8.0f, 8.0f};  // head_dim 14
        for (KvType t : kTypes)
            for (const Shape& sh : kShapes)
                for (const RopeParams& rope :
                     {RopeParams{10000.0f, RopeLayout::Interleaved, 1.0, nullptr},
                      RopeParams{500000.0f, RopeLayout::HalfSplit, 0.25, nullptr},
                      RopeParams{10000.0f, RopeLayout::HalfSplit, 1.0,
                                 sh.head_dim == 14 ? divisors : nullptr}}) {
                    const KvStorage s = storage_of(t, KvType::F32, sh.groups);
                    const int kv_dim = sh.groups * sh.head_dim, capacity = 37;
                    const QString w = what(s, kv_dim, capacity);
                    HostPlanes p(s, kv_dim, capacity);
                    RowBuffer b(1, kv_dim, capacity, s);
                    const std::vector<float> k = finite_rows(rng, capacity, kv_dim);
                    write_rows(p, k.data(), k.data(), 0, capacity);
                    b.write(0, 0, k.data(), k.data(), capacity);
                    b.clear_stats();
                    // Rows 5.. of the layer, some not moved (delta 0), some far.
                    const int first = 5, n = capacity - first;
                    std::vector<int32_t> delta(static_cast<size_t>(n));
                    for (int32_t& d : delta) d = rng() % 5 == 0 ? 0 : int32_t(rng() % 9000) - 4500;
                    std::vector<float> scratch(size_t(n) * size_t(kv_dim));
                    std::vector<QuantStats> stats(static_cast<size_t>(n));
                    host_launch(kern::cache_kshift(p.k.view(), nullptr, first, delta.data(), n,
                                                   sh.head_dim, rope, scratch.data(),
                                                   stats.data()));
                    // StateManager::reindex_layer's loop, on the RowBuffer.
                    std::vector<float> x(static_cast<size_t>(kv_dim));
                    for (int i = 0; i < n; ++i) {
                        if (delta[size_t(i)] == 0) continue;
                        b.read_k(0, first + i, x.data());
                        for (int h = 0; h < sh.groups; ++h)
                            rope_rerotate(x.data() + size_t(h) * size_t(sh.head_dim), sh.head_dim,
                                          double(delta[size_t(i)]), rope);
                        b.write_k(0, first + i, x.data());
                    }
                    QVERIFY2(same_rows(p, b, 0, capacity, 0), qPrintable(w));
                    QVERIFY2(same_stats(sum(stats), b.k_stats(0)), qPrintable(w));
                    if (t != KvType::F32) continue;
                    // float64: each pair rotated by delta times its frequency.
                    const auto* got = reinterpret_cast<const float*>(p.k.data.data());
                    for (int i = 0; i < n; ++i)
                        for (int h = 0; h < sh.groups; ++h)
                            for (int j = 0; j < sh.head_dim / 2; ++j) {
                                const bool il = rope.layout == RopeLayout::Interleaved;
                                const size_t base = size_t(first + i) * size_t(kv_dim) +
                                                    size_t(h) * size_t(sh.head_dim);
                                const size_t a = base + size_t(il ? 2 * j : j);
                                const size_t c =
                                    base + size_t(il ? 2 * j + 1 : j + sh.head_dim / 2);
                                double f = std::pow(double(rope.theta), -2.0 * j / sh.head_dim);
                                if (rope.freq_divisors) f /= double(rope.freq_divisors[j]);
                                f *= rope.pos_scale;
                                const double ang = double(delta[size_t(i)]) * f;
                                const double x0 = k[a], x1 = k[c];
                                const double want0 = x0 * std::cos(ang) - x1 * std::sin(ang);
                                const double want1 = x0 * std::sin(ang) + x1 * std::cos(ang);
                                QVERIFY2(std::fabs(got[a] - want0) <
                                             1e-5 * (1 + std::fabs(x0) + std::fabs(x1)),
                                         qPrintable(w));
                                QVERIFY2(std::fabs(got[c] - want1) <
                                             1e-5 * (1 + std::fabs(x0) + std::fabs(x1)),
                                         qPrintable(w));
                            }
                }
    }

    // ---- gist -----------------------------------------------------------------------------------

    void gists_equal_mean_pool_rows_and_float64_means() {
        std::mt19937 rng(12);
        for (int dim : {1, 40, 112}) {
            const int rows = 37;
            const std::vector<float> x = finite_rows(rng, rows, dim);
            // Gists of 1, 3, 8 and all 37 rows, rows picked out of order.
            std::vector<int32_t> offsets{0}, index;
            for (int span : {1, 3, 8, 37}) {
                for (int j = 0; j < span; ++j) index.push_back(int32_t(rng() % unsigned(rows)));
                offsets.push_back(int32_t(index.size()));
            }
            const int gists = int(offsets.size()) - 1;
            std::vector<float> out(size_t(gists) * size_t(dim));
            host_launch(kern::cache_gist_pool(x.data(), index.data(), offsets.data(), gists, dim,
                                              out.data()));
            std::vector<float> want(static_cast<size_t>(dim));
            for (int g = 0; g < gists; ++g) {
                std::vector<const float*> picked;
                for (int j = offsets[size_t(g)]; j < offsets[size_t(g) + 1]; ++j)
                    picked.push_back(x.data() + size_t(index[size_t(j)]) * size_t(dim));
                mean_pool_rows(picked.data(), int(picked.size()), dim, want.data());
                QVERIFY(std::memcmp(out.data() + size_t(g) * size_t(dim), want.data(),
                                    size_t(dim) * sizeof(float)) == 0);
                for (int i = 0; i < dim; ++i) {
                    double mean = 0.0;
                    for (const float* r : picked) mean += r[i];
                    mean /= double(picked.size());
                    QVERIFY(std::fabs(out[size_t(g) * size_t(dim) + size_t(i)] - mean) < 1e-5);
                }
            }
        }
    }

    // ---- drift ----------------------------------------------------------------------------------

    void drift_equals_the_float64_row_error() {
        std::mt19937 rng(13);
        for (int kv_dim : {1, 40, 112}) {
            const int n = 37;
            std::vector<float> ref = finite_rows(rng, n, kv_dim);
            std::vector<float> cached = ref;
            std::normal_distribution<float> noise(0.0f, 1e-3f);
            for (float& f : cached) f += noise(rng);
            std::fill(ref.begin(), ref.begin() + kv_dim, 0.0f);  // row 0: absolute error
            std::vector<float> dk(static_cast<size_t>(n)), dv(static_cast<size_t>(n));
            host_launch(kern::cache_drift(cached.data(), ref.data(), ref.data(), ref.data(), n,
                                          kv_dim, dk.data(), dv.data()));
            for (int r = 0; r < n; ++r) {
                double max_diff = 0.0, norm = 0.0;
                for (int i = 0; i < kv_dim; ++i) {
                    const size_t at = size_t(r) * size_t(kv_dim) + size_t(i);
                    max_diff = std::max(max_diff, std::fabs(double(cached[at]) - double(ref[at])));
                    norm += double(ref[at]) * double(ref[at]);
                }
                norm = std::sqrt(norm);
                const float want = float(norm > 0.0 ? max_diff / norm : max_diff);
                QCOMPARE(dk[size_t(r)], want);
                QCOMPARE(dv[size_t(r)], 0.0f);
            }
        }
    }

    // ---- XXH64 and the block digests
    // --------------------------------------------------------------

    void xxh64_equals_python_xxhash_in_one_piece_and_in_cuts() {
        std::ifstream f(test::testdata_path("stream_hash/cases.txt"));
        const std::vector<unsigned char> input =
            read_file(test::testdata_path("stream_hash/input.bin"));
        std::mt19937 rng(14);
        std::string line;
        int cases = 0;
        while (std::getline(f, line)) {
            std::istringstream in(line);
            size_t offset = 0, length = 0;
            std::string hex;
            in >> offset >> length >> hex;
            QVERIFY(offset + length <= input.size());
            const uint64_t want = std::stoull(hex, nullptr, 16);
            const unsigned char* bytes = input.data() + offset;
            QVERIFY2(xxh64(bytes, length) == want, qPrintable(QString("length %1").arg(length)));
            Xxh64State cut;
            for (size_t i = 0; i < length;) {
                const size_t n = std::min(length - i, size_t(rng() % 45));
                cut.update(bytes + i, n);
                i += n;
            }
            QVERIFY2(cut.digest() == want, qPrintable(QString("length %1, cut").arg(length)));
            ++cases;
        }
        QVERIFY(cases >= 301);  // every length 0..300, stripes whole and not, and long ones
    }

    void block_digests_equal_the_state_digests_bytes() {
        std::mt19937 rng(15);
        for (KvType t : kTypes) {
            const KvStorage s = storage_of(t, other_type(t), 4);
            const int kv_dim = 40, rows = 300, capacity = 300;
            HostPlanes p(s, kv_dim, capacity);
            auto layout = make_kv_layout(CacheLayout::Contiguous, 1, kv_dim, capacity, s);
            fill(p, layout.get(), rng, rows);
            LayerMap map;
            for (int r = 0; r < rows; ++r) {
                map.pos2ledger.push_back(int64_t(rng()) << 20 | r);
                map.rope_pos.push_back(int32_t(rng() % 5000));
            }
            const int blocks = (rows + kRevisionBlockRows - 1) / kRevisionBlockRows;
            std::vector<Xxh64State> begun;
            for (int b = 0; b < blocks; ++b)
                begun.push_back(row_block_head(map, rows, size_t(b)).state());
            // The stored rows in physical order reversed, read through an index.
            HostPlanes reversed(s, kv_dim, capacity);
            std::vector<int32_t> index(static_cast<size_t>(rows));
            for (int r = 0; r < rows; ++r) index[size_t(r)] = rows - 1 - r;
            host_launch(kern::cache_gather_rows(reversed.view(), 0, p.view(), index.data(), 0, rows,
                                                nullptr)
                            .step[0]);
            std::vector<uint64_t> plain(static_cast<size_t>(blocks)),
                through(static_cast<size_t>(blocks));
            host_launch(kern::cache_block_digest(p.view(), nullptr, begun.data(), 0, blocks, rows,
                                                 kRevisionBlockRows, plain.data()));
            host_launch(kern::cache_block_digest(reversed.view(), index.data(), begun.data(), 0,
                                                 blocks, rows, kRevisionBlockRows, through.data()));
            for (int b = 0; b < blocks; ++b) {
                // The bytes StateDigest reads for the block, laid out here.
                const int first = b * kRevisionBlockRows;
                const int end = std::min(first + kRevisionBlockRows, rows);
                std::vector<uint8_t> bytes;
                const auto put = [&](const void* data, size_t n) {
                    const auto* c = static_cast<const uint8_t*>(data);
                    bytes.insert(bytes.end(), c, c + n);
                };
                const int count = end - first;
                put(&count, sizeof count);
                put(map.pos2ledger.data() + first, size_t(count) * sizeof(int64_t));
                put(map.rope_pos.data() + first, size_t(count) * sizeof(int32_t));
                put(&count, sizeof count);
                for (int r = first; r < end; ++r) {
                    const std::vector<uint8_t> row = layout->stored_row(0, r);
                    put(row.data(), row.size());
                }
                QCOMPARE(plain[size_t(b)], xxh64(bytes.data(), bytes.size()));
                QCOMPARE(through[size_t(b)], plain[size_t(b)]);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestCacheBodies)
#include "test_cache_bodies.moc"
