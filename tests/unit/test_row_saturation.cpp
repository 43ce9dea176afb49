// Saturation per row (docs/ARCHITECTURE.md §13, §17): the values a row's K / V storage type
// clipped are counted beside the row and move with it, so a ring's frame can show them per slab
// row. Checked against a float64 count written here, on rows of known values (infinities, values
// beyond f16 / bf16, NaN), in every ring mode before and after the ring wraps.
#include <QtTest>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/cache/ring_layout.h"
#include "core/session/frame.h"

using namespace kvw;

namespace {

constexpr int kDim = 8;
constexpr int kGroups = 2;
constexpr float kInf = std::numeric_limits<float>::infinity();

// Values every type handles differently: large finite ones clip f16 (>= 65520) or bf16
// (>= (2 - 2^-8) * 2^127), infinities clip int8 and fp8 (they do not set the scale), NaN
// clips nothing.
const float kPalette[] = {0.5f, -3.0f, 1.0e5f, -7.0e4f, 65519.0f, 65520.0f,
                          kInf, -kInf, NAN,    3.4e38f, 3.3e38f,  2.0f};

std::vector<float> row_of(int64_t token, int half) {
    std::mt19937 rng(uint32_t(token * 2 + half));
    std::uniform_int_distribution<size_t> pick(0, std::size(kPalette) - 1);
    std::vector<float> r(kDim);
    for (float& x : r) x = kPalette[pick(rng)];
    return r;
}

// The float64 count: how many values of `x` the type clips.
uint32_t reference_clipped(KvType type, const std::vector<float>& x) {
    uint32_t n = 0;
    const int g = kDim / kGroups;
    for (int h = 0; h < kGroups; ++h) {
        double amax = 0.0;
        for (int i = h * g; i < (h + 1) * g; ++i)
            if (std::isfinite(x[size_t(i)])) amax = std::max(amax, std::fabs(double(x[size_t(i)])));
        for (int i = h * g; i < (h + 1) * g; ++i) {
            const double v = x[size_t(i)];
            if (std::isnan(v)) continue;
            switch (type) {
                case KvType::Int8:
                    n += std::fabs(std::nearbyint(amax > 0 ? v / (amax / 127.0) : v)) > 127.0;
                    break;
                case KvType::Fp8E4M3:
                    n += std::fabs(amax > 0 ? v / (amax / 448.0) : v) >= 464.0;
                    break;
                case KvType::F16: n += std::isfinite(v) && std::fabs(v) >= 65520.0; break;
                case KvType::BF16:
                    n += std::isfinite(v) &&
                         std::fabs(v) >= (2.0 - std::ldexp(1.0, -8)) * std::ldexp(1.0, 127);
                    break;
                case KvType::F32: break;
            }
        }
    }
    return n;
}

uint32_t reference_row(const KvStorage& s, int64_t token) {
    return reference_clipped(s.k, row_of(token, 0)) + reference_clipped(s.v, row_of(token, 1));
}

// Tokens [first, first + n) after dropping the oldest ring rows that leave no room.
void ring_append(RingLayout& ring, int64_t first, int n) {
    const int over = ring.rows(0) + n - ring.capacity();
    if (over > 0) ring.remove_range(0, std::min(ring.options().sinks, ring.rows(0)), over);
    std::vector<float> k, v;
    for (int i = 0; i < n; ++i) {
        const std::vector<float> rk = row_of(first + i, 0), rv = row_of(first + i, 1);
        k.insert(k.end(), rk.begin(), rk.end());
        v.insert(v.end(), rv.begin(), rv.end());
    }
    ring.append(0, k.data(), v.data(), n);
}

}  // namespace

class TestRowSaturation : public QObject {
    Q_OBJECT

private slots:
    void per_row_counts_match_a_float64_count_and_the_layer_counter() {
        const KvStorage storages[] = {{KvType::Int8, KvType::F16, kGroups},
                                      {KvType::Fp8E4M3, KvType::BF16, kGroups}};
        for (const KvStorage& storage : storages)
            for (RingMode mode : {RingMode::Roll, RingMode::Pointer, RingMode::Lut}) {
                const int T = 10, S = 2;
                RingLayout ring(1, kDim, T, storage, {mode, S, 2, true});
                // No row has left yet: the rows' counts add up to the layer's counter.
                ring_append(ring, 0, 7);
                RingFrame f = ring_frame(ring, 0);
                QCOMPARE(f.saturated.size(), size_t(T));
                uint64_t sum = 0, reference = 0;
                for (uint32_t c : f.saturated) sum += c;
                for (int64_t t = 0; t < 7; ++t) reference += reference_row(storage, t);
                QVERIFY(reference > 0);
                QCOMPARE(sum, reference);
                QCOMPARE(sum, ring.k_stats(0).saturated + ring.v_stats(0).saturated);
                // Across wraps every held row's count is its own token's; free slots hold 0.
                int64_t next = 7;
                for (int update = 0; update < 9; ++update, next += 2) {
                    ring_append(ring, next, 2);
                    f = ring_frame(ring, 0);
                    std::vector<uint32_t> want(size_t(T), 0);
                    for (int j = 0; j < ring.rows(0); ++j) {
                        const int64_t token = j < S ? j : next + 2 - (ring.rows(0) - j);
                        want[size_t(ring.slab_row(0, j))] = reference_row(storage, token);
                    }
                    QCOMPARE(f.saturated, want);
                }
                QVERIFY(ring.wraps(0) >= 1);
            }
    }

    // The counters travel with their rows, so the traffic counts them: a roll update that
    // drops the 2 oldest of 8 ring rows moves the 6 others, a pointer read assembles all 10
    // rows. Per row, by hand: int8 K 8 codes + 2 scales + a counter = 20 bytes, f16 V 16 + a
    // counter = 20; f32 K and V 32 + 32 with no counter.
    void bytes_moved_and_assembled_count_the_clip_counters() {
        const struct {
            KvStorage storage;
            uint64_t slot;
        } cases[] = {{{KvType::Int8, KvType::F16, kGroups}, 40}, {{}, 64}};
        for (const auto& c : cases) {
            RingLayout roll(1, kDim, 10, c.storage, {RingMode::Roll, 2, 1, false});
            ring_append(roll, 0, 10);
            const uint64_t before = roll.bytes_moved();
            ring_append(roll, 10, 2);
            QCOMPARE(roll.bytes_moved() - before, 6 * c.slot);

            RingLayout pointer(1, kDim, 10, c.storage, {RingMode::Pointer, 2, 1, false});
            ring_append(pointer, 0, 10);
            ring_append(pointer, 10, 2);
            QCOMPARE(pointer.bytes_moved(), uint64_t(0));  // a head advance
            const uint64_t assembled = pointer.bytes_assembled();
            pointer.view(0);
            QCOMPARE(pointer.bytes_assembled() - assembled, 10 * c.slot);
        }
    }

    // f32 clips nothing and keeps no counters; the frame then has none.
    void f32_rows_keep_no_counters() {
        RingLayout ring(1, kDim, 6, {}, {RingMode::Pointer, 0, 1, false});
        ring_append(ring, 0, 4);
        QVERIFY(ring_frame(ring, 0).saturated.empty());
        QCOMPARE(RowBuffer::counter_bytes({}), uint64_t(0));
        QCOMPARE(RowBuffer::counter_bytes({KvType::BF16, KvType::F32, 1}), uint64_t(4));
    }
};

QTEST_GUILESS_MAIN(TestRowSaturation)
#include "test_row_saturation.moc"
