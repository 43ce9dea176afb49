// The KV cache's kernel bodies that write, read and move rows (kernels/bodies/cache_write, _decode,
// _gather, _ring, _kshift), run over their grids on the CPU by host_launch through the same
// builders the CUDA launchers call, against the CPU cache they will replace (RowBuffer, the
// layouts, reindex_layer's decode / rope_rerotate / encode). Shapes are awkward on purpose: one
// row, full capacity, widths that are not multiples of 32, every storage type, 1 / 4 / 8 scale
// groups (tests/unit/cache_planes.h). The bodies that reduce rows are in
// test_cache_reduction_bodies.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/cache/cache_error.h"
#include "core/cache/kv_layout.h"
#include "core/cache/ring_layout.h"
#include "core/math/rope.h"
#include "kernels/bodies/cache_decode.h"
#include "kernels/bodies/cache_gather.h"
#include "kernels/bodies/cache_kshift.h"
#include "kernels/bodies/cache_ring.h"
#include "kernels/launch/host_launch.h"
#include "tests/unit/cache_planes.h"
#include "tests/unit/error_checks.h"

using namespace kvw;
using namespace kvw::test;
using kern::host_launch;

namespace {

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

QuantStats sum(const std::vector<QuantStats>& rows) {
    QuantStats s;
    for (const QuantStats& r : rows) s.add(r);
    return s;
}

bool same_stats(const QuantStats& a, const QuantStats& b) {
    return a.saturated == b.saturated && a.nan_inputs == b.nan_inputs;
}

// Plane rows [first, first + n) against RowBuffer's physical rows from b_first: bytes, scales
// and clip counters.
bool same_rows(HostPlanes& p, const RowBuffer& b, int first, int n, int b_first) {
    std::vector<uint8_t> stored(b.row_bytes());
    for (int i = 0; i < n; ++i) {
        const int at[] = {b_first + i};
        b.stored_rows(0, at, stored.data());
        if (stored_row(p, first + i) != stored ||
            p.k.saturated_at(first + i) != b.k_saturated(0, b_first + i) ||
            p.v.saturated_at(first + i) != b.v_saturated(0, b_first + i))
            return false;
    }
    return true;
}

bool same_as_layout(HostPlanes& p, const KvLayout& layout, int first, int n, int layout_first) {
    for (int i = 0; i < n; ++i)
        if (stored_row(p, first + i) != layout.stored_row(0, layout_first + i)) return false;
    return true;
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
                        b.write(0, at, {k.data(), v.data()}, n);
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
        QCOMPARE(test::capacity_exceeded_mismatch(
                     [&] {
                         kern::cache_write_rows(3, p.view(), rows.data(), rows.data(), 4, 2,
                                                st.data(), st.data());
                     },
                     3, 4, 2, 5),
                 QString());
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
                    b.write(0, 0, {k.data(), v.data()}, capacity);
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
                bsrc.write(0, 0, {k.data(), v.data()}, capacity);
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
                const RowBuffer& stored_slab = ring.slab_buffer();
                std::vector<uint8_t> stored(stored_slab.row_bytes());
                for (int r = 0; r < capacity; ++r) {
                    const int at[] = {r};
                    stored_slab.stored_rows(0, at, stored.data());
                    const uint8_t* from = stored.data();  // K bytes, K scales, V bytes, V scales
                    for (HostPlane* plane : {&slab.k, &slab.v}) {
                        const CachePlane c = plane->view();
                        std::memcpy(c.row(size_t(r)), from, c.data_bytes());
                        from += c.data_bytes();
                        if (c.scales) std::memcpy(c.scale(size_t(r)), from, c.scale_bytes());
                        from += c.scale_bytes();
                        if (c.saturated)
                            c.saturated[r] = plane == &slab.k ? ring.slab_saturated(0, r) : 0;
                    }
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
                    b.write(0, 0, {k.data(), k.data()}, capacity);
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
                    // The K-shift through the RowBuffer (StateManager::reindex_layer's call)...
                    std::vector<int> rows(static_cast<size_t>(n));
                    for (int i = 0; i < n; ++i) rows[size_t(i)] = first + i;
                    b.rerotate_k(0, rows, delta, sh.head_dim, rope);
                    QVERIFY2(same_rows(p, b, 0, capacity, 0), qPrintable(w));
                    QVERIFY2(same_stats(sum(stats), b.k_stats(0)), qPrintable(w));
                    // ... and written plainly: decode, rotate each head, encode.
                    HostPlanes plain(s, kv_dim, capacity);
                    write_rows(plain, k.data(), k.data(), 0, capacity);
                    const CachePlane pk = plain.k.view();
                    std::vector<float> x(static_cast<size_t>(kv_dim));
                    for (int i = 0; i < n; ++i) {
                        if (delta[size_t(i)] == 0) continue;
                        const size_t r = size_t(first + i);
                        kv_decode_row(t, pk.row(r), pk.scale(r), kv_dim, sh.groups, x.data());
                        for (int h = 0; h < sh.groups; ++h)
                            rope_rerotate(x.data() + size_t(h) * size_t(sh.head_dim), sh.head_dim,
                                          double(delta[size_t(i)]), rope);
                        QuantStats st;
                        kv_encode_row(t, x.data(), kv_dim, sh.groups, pk.row(r), pk.scale(r), st);
                        if (pk.saturated) pk.saturated[r] = uint32_t(st.saturated);
                    }
                    QVERIFY2(same_rows(plain, b, 0, capacity, 0), qPrintable(w));
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
};

QTEST_GUILESS_MAIN(TestCacheBodies)
#include "test_cache_bodies.moc"
