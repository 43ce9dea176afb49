// `cpu:fast`'s attention (core/backend/cpu/fast_attention.h), through FastCpuBackend::attention
// on every path this CPU runs (each with its attention kernel): outputs and attention mass against
// float64 attention written plainly (tests/unit/attention_reference.h) on awkward shapes (rows not
// multiples of the score rows or the chunks, one row, groups 1 / 4 / 8, hd 4 … 256 and not
// multiples of 16, prefills long enough to be cut into runs of queries, scores far apart, every K/V
// storage type, permuted rows, sliding windows); a NaN query or K row giving NaN; the same bits for
// 1, 2 and 3 threads and for a batch split into calls (prefill then decode); f16 / bf16 rows read
// as stored giving the bits of the same rows decoded first, on `cpu:fast` and on the reference;
// every path the bits of the first.
#include <QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/backend/backend.h"
#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/cpu/fast_attention.h"
#include "core/backend/cpu/fast_cpu_backend.h"
#include "core/backend/cpu/fast_kernels.h"
#include "core/cache/kv_storage.h"
#include "tests/unit/attention_case.h"
#include "tests/unit/attention_reference.h"

using namespace kvw;
using test::AttentionInputs;
using test::AttentionShape;

namespace {

constexpr float kSentinel = 12345.0f;

// The engine's call over the inputs, writing out and (when the shape asks) mass.
AttentionCall call_of(const AttentionInputs& in, float* out, float* mass) {
    AttentionCall c;
    c.context.rows = in.s.rows;
    c.context.k = {in.k.data(), in.s.k_type, in.k_scale.empty() ? nullptr : in.k_scale.data()};
    c.context.v = {in.v.data(), in.s.v_type, in.v_scale.empty() ? nullptr : in.v_scale.data()};
    c.context.index = in.index.empty() ? nullptr : in.index.data();
    c.context.positions = in.context_positions.data();
    c.context.k_store = in.s.k_type;
    c.context.v_store = in.s.v_type;
    c.positions = in.positions;
    c.n_heads = in.s.n_heads;
    c.n_kv_heads = in.s.n_kv_heads;
    c.head_dim = in.s.head_dim;
    c.window = in.s.window;
    c.scale = 1.0f / std::sqrt(float(in.s.head_dim));
    c.q = in.q.data();
    c.k_new = in.k_new.data();
    c.v_new = in.v_new.data();
    c.out = out;
    c.mass = in.s.mass ? mass : nullptr;
    return c;
}

struct Result {
    std::vector<float> out, mass;
};

Result attend(Backend& backend, const AttentionInputs& in) {
    Result r;
    r.out.assign(size_t(in.s.n) * in.q_dim(), kSentinel);
    r.mass.assign(size_t(in.s.rows + in.s.n), kSentinel);
    backend.attention(call_of(in, r.out.data(), r.mass.data()));
    return r;
}

// The shared attention shapes, and ones around this kernel's sixteen score rows and chunks of
// cpu::kFastAttentionChunkRows: {rows, n, heads, kv heads, hd, window, K, V, permuted, mass}.
std::vector<AttentionShape> shapes() {
    using T = KvType;
    std::vector<AttentionShape> all = test::attention_shapes();
    const std::vector<AttentionShape> more = {
        {0, 1, 8, 1, 64, 0, T::F32, T::F32, false, true},           // one row
        {15, 1, 8, 1, 64, 0, T::F16, T::F16, false, true},          // fewer rows than a score tile
        {63, 2, 8, 2, 100, 0, T::BF16, T::BF16, true, true},        // hd not a multiple of 16
        {64, 1, 4, 4, 4, 0, T::F32, T::BF16, false, true},          // hd 4, group 1
        {129, 3, 8, 2, 128, 0, T::F16, T::F32, false, true},        // a chunk of the new items
        {200, 4, 16, 2, 24, 0, T::F16, T::F16, true, true, 40.0f},  // weights underflow
        {1000, 1, 32, 4, 64, 0, T::F32, T::F32, false, true},       // TinyLlama's heads, decode
        {190, 70, 8, 1, 36, 0, T::BF16, T::F16, false, false},      // a prefill, no mass
        {150, 40, 8, 2, 64, 0, T::F32, T::F16, true, true},         // a prefill with mass
        {40, 2, 4, 2, 256, 0, T::F16, T::F32, false, true},         // hd 256
        // the AVX-512 decode's pairs of K/V heads: an odd count, hd 128, hd not a multiple of 16
        {300, 1, 24, 3, 64, 0, T::F16, T::F16, true, true},    // three K/V heads
        {129, 2, 8, 2, 128, 0, T::F16, T::BF16, false, true},  // two queries of four heads
        {70, 1, 16, 2, 80, 0, T::BF16, T::F16, false, true},   // hd 80
    };
    all.insert(all.end(), more.begin(), more.end());
    return all;
}

QString tag(const AttentionShape& s) { return QString::fromStdString(test::shape_tag(s)); }

// The cpu:fast paths this CPU runs, fastest first.
std::vector<std::string_view> paths() {
    std::vector<std::string_view> all;
    for (const cpu::FastKernel& k : cpu::fast_kernels())
        if (k.cpu_has()) all.push_back(k.name);
    return all;
}

// How path's attention kernel sums the scores.
cpu::AttentionScores scores_of(std::string_view path) {
    for (const cpu::FastKernel& k : cpu::fast_kernels())
        if (k.name == path) return cpu::fast_attention_kernel(k.attention).scores;
    throw std::invalid_argument("no cpu:fast path " + std::string(path));
}

// A path this CPU runs whose scores are summed in half precision, and one whose are float32
// (empty where it runs none).
std::pair<std::string_view, std::string_view> half_and_float32_paths() {
    std::string_view half, single;
    for (const std::string_view path : paths())
        (scores_of(path) == cpu::AttentionScores::Half ? half : single) = path;
    return {half, single};
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::bit_cast<uint32_t>(a[i]) != std::bit_cast<uint32_t>(b[i])) return false;
    return true;
}

}  // namespace

class TestFastAttention : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        std::string why;
        if (!FastCpuBackend::available(why)) QSKIP(why.c_str());
    }

    void outputs_and_mass_match_float64_attention_data() {
        QTest::addColumn<QString>("path");
        for (const std::string_view path : paths())
            QTest::newRow(std::string(path).c_str()) << QString::fromUtf8(path);
    }

    // A kernel with half-precision scores against float64 attention over the same rounded q and
    // k, within f32 tolerance plus what the scores' bound allows: scores off by at most Δ move
    // each weight by a factor within e^±2Δ, so an output by (e^2Δ − 1) of Σ_j p_j |v_j|.
    void outputs_and_mass_match_float64_attention() {
        QFETCH(QString, path);
        const bool halves = scores_of(path.toStdString()) == cpu::AttentionScores::Half;
        uint32_t seed = 1;
        for (const AttentionShape& s : shapes()) {
            const AttentionInputs in = test::make_attention_inputs(s, seed++);
            FastCpuBackend backend(2, path.toStdString());
            const Result got = attend(backend, in);
            const test::AttentionReference want = test::reference_attention(
                in, halves ? test::ScoreInputs::Halves : test::ScoreInputs::Exact);
            const std::vector<float> v = test::all_rows(in, true);
            const int hd = s.head_dim, group = s.n_heads / s.n_kv_heads;
            const auto slack = [&](size_t i_h) {
                return 1e-4 + (halves ? std::expm1(2.0 * want.score_bound[i_h]) : 0.0);
            };
            double widest = 0.0;  // the mass sums every query and head
            for (size_t i_h = 0; i_h < want.score_bound.size(); ++i_h)
                widest = std::max(widest, slack(i_h));
            for (int i = 0; i < s.n; ++i)
                for (int h = 0; h < s.n_heads; ++h)
                    for (int d = 0; d < hd; ++d) {
                        double magnitude = 0.0;
                        const std::vector<double>& p = want.p[size_t(i * s.n_heads + h)];
                        for (size_t j = 0; j < p.size(); ++j)
                            magnitude += std::abs(
                                p[j] * double(v[j * in.kv_dim() + size_t(h / group * hd + d)]));
                        const size_t at = size_t(i) * in.q_dim() + size_t(h) * hd + d;
                        const double bound = slack(size_t(i * s.n_heads + h)) * magnitude + 1e-6;
                        if (!(std::abs(got.out[at] - want.out[at]) <= bound))
                            QFAIL(qPrintable(tag(s) + QString(": out[%1][%2][%3] = %4, float64 %5")
                                                          .arg(i)
                                                          .arg(h)
                                                          .arg(d)
                                                          .arg(got.out[at], 0, 'g', 9)
                                                          .arg(want.out[at], 0, 'g', 9)));
                    }
            if (!s.mass) continue;
            for (size_t j = 0; j < want.mass.size(); ++j)
                if (!(std::abs(got.mass[j] - want.mass[j]) <= widest * want.mass[j] + 1e-6))
                    QFAIL(qPrintable(tag(s) + QString(": mass[%1] = %2, float64 %3")
                                                  .arg(j)
                                                  .arg(got.mass[j], 0, 'g', 9)
                                                  .arg(want.mass[j], 0, 'g', 9)));
        }
    }

    // Every path this CPU runs whose attention sums the scores alike (the AVX-512 and the AVX2
    // kernels: sixteen lanes, or eight with the contract's sixteen in two vectors) gives the
    // bits of the first such path.
    void every_path_gives_the_same_bits() {
        const std::vector<std::string_view> all = paths();
        int compared = 0;
        uint32_t seed = 300;
        for (const AttentionShape& s : shapes()) {
            const AttentionInputs in = test::make_attention_inputs(s, seed++);
            for (size_t k = 1; k < all.size(); ++k) {
                size_t first_alike = 0;
                while (scores_of(all[first_alike]) != scores_of(all[k])) ++first_alike;
                if (first_alike == k) continue;
                ++compared;
                FastCpuBackend first(3, all[first_alike]);
                const Result want = attend(first, in);
                FastCpuBackend other(3, all[k]);
                const Result got = attend(other, in);
                const QString what = tag(s) + ": " + QString::fromUtf8(all[k]);
                QVERIFY2(same_bits(got.out, want.out), qPrintable(what));
                QVERIFY2(same_bits(got.mass, want.mass), qPrintable(what));
            }
        }
        if (compared == 0) QSKIP("this CPU runs no two cpu:fast paths whose scores are alike");
    }

    // Half-precision scores beyond their limit (or not finite) are redone in float32: with
    // queries that put every score far past it, a path with half scores gives the bits of the
    // same kernels with float32 scores; with ordinary queries it does not (so the half scores
    // ran).
    void half_scores_past_their_limit_are_float32_scores() {
        const auto [half, single] = half_and_float32_paths();
        if (half.empty() || single.empty())
            QSKIP("this CPU runs no paths with both kinds of scores");
        for (const float q_scale : {1.0f, 4000.0f}) {
            // a decode (four K/V heads side by side: one query in all 32 lanes, or two queries
            // of four heads a K/V head, one in each half of the lanes) and a prefill (K
            // transposed)
            for (const auto& [n, heads] : {std::pair{1, 32}, std::pair{2, 16}, std::pair{20, 32}}) {
                const AttentionShape s{200,         n,           heads, 4,    64,     0,
                                       KvType::F16, KvType::F16, false, true, q_scale};
                const AttentionInputs in = test::make_attention_inputs(s, 31);
                FastCpuBackend a(2, half), b(2, single);
                const Result got = attend(a, in), want = attend(b, in);
                const bool same = same_bits(got.out, want.out) && same_bits(got.mass, want.mass);
                QVERIFY2(same == (q_scale > 1.0f), qPrintable(tag(s)));
            }
        }
    }

    // Half scores are checked query by query as they are stored: in a decode of two queries on
    // the quads (four streams a K/V head each, one query's in the low sixteen lanes, the other's
    // in the high), only the query whose scores pass the limit is redone in float32 (the
    // float32 path's bits); the other keeps its half scores (other bits).
    void half_scores_are_checked_query_by_query() {
        const auto [half, single] = half_and_float32_paths();
        if (half.empty() || single.empty())
            QSKIP("this CPU runs no paths with both kinds of scores");
        const AttentionShape s{200, 2, 16, 4, 64, 0, KvType::F16, KvType::F16, false, true};
        for (const int large : {0, 1}) {
            AttentionInputs in = test::make_attention_inputs(s, 37);
            const size_t q_dim = size_t(in.q_dim());
            for (size_t d = 0; d < q_dim; ++d) in.q[size_t(large) * q_dim + d] *= 4000.0f;
            FastCpuBackend a(2, half), b(2, single);
            const Result got = attend(a, in), want = attend(b, in);
            const auto out_of = [&](const Result& r, int i) {
                return std::vector<float>(r.out.begin() + ptrdiff_t(size_t(i) * q_dim),
                                          r.out.begin() + ptrdiff_t(size_t(i + 1) * q_dim));
            };
            QVERIFY2(same_bits(out_of(got, large), out_of(want, large)), "redone in float32");
            QVERIFY2(!same_bits(out_of(got, 1 - large), out_of(want, 1 - large)), "kept half");
        }
    }

    // A NaN in one head's query makes that head's output NaN and leaves the other K/V heads'
    // finite; a NaN in one K row (one of many, most weights finite) makes every output NaN.
    void nan_gives_nan() {
        const AttentionShape s{100, 1, 8, 2, 64, 0, KvType::F32, KvType::F32, false, true};
        AttentionInputs in = test::make_attention_inputs(s, 7);
        FastCpuBackend backend(2);
        in.q[3] = std::numeric_limits<float>::quiet_NaN();  // head 0
        Result r = attend(backend, in);
        for (int d = 0; d < 64; ++d) QVERIFY(std::isnan(r.out[size_t(d)]));
        for (int d = 4 * 64; d < 8 * 64; ++d) QVERIFY(std::isfinite(r.out[size_t(d)]));

        in = test::make_attention_inputs(s, 7);
        float nan = std::numeric_limits<float>::quiet_NaN();
        std::memcpy(in.k.data() + size_t(70) * in.kv_dim() * sizeof(float) + 5 * sizeof(float),
                    &nan, sizeof nan);  // row 70, K/V head 0
        r = attend(backend, in);
        for (int d = 0; d < 4 * 64; ++d) QVERIFY(std::isnan(r.out[size_t(d)]));
        for (int d = 4 * 64; d < 8 * 64; ++d) QVERIFY(std::isfinite(r.out[size_t(d)]));
    }

    void same_bits_for_one_two_and_three_threads() {
        uint32_t seed = 100;
        for (const AttentionShape& s : shapes()) {
            const AttentionInputs in = test::make_attention_inputs(s, seed++);
            FastCpuBackend one(1);
            const Result want = attend(one, in);
            for (int threads : {2, 3}) {
                FastCpuBackend backend(threads);
                const Result got = attend(backend, in);
                QVERIFY2(same_bits(got.out, want.out), qPrintable(tag(s)));
                QVERIFY2(same_bits(got.mass, want.mass), qPrintable(tag(s)));
            }
        }
    }

    // The last queries of a batch give the bits of the same queries attending after the first
    // ones were stored in the context: a prefill of N rows followed by decode is one pass. (70
    // queries on two threads are cut into runs of 16 queries, 37 or fewer into chunks: both
    // ways.)
    void batch_split_gives_the_same_bits() {
        for (const KvType t : {KvType::F32, KvType::F16, KvType::BF16}) {
            const AttentionShape s{130, 70, 8, 2, 64, 0, t, t, false, false};
            const AttentionInputs whole = test::make_attention_inputs(s, 11);
            FastCpuBackend backend(2);
            const Result want = attend(backend, whole);
            for (const int first : {1, 5, 8, 33, 69}) {
                // The first `first` new items stored after the context (their K/V are already
                // what the storage type gives back, so storing them again keeps their values).
                AttentionInputs later = whole;
                later.s.rows = s.rows + first;
                later.s.n = s.n - first;
                std::vector<uint8_t> bytes;
                std::vector<float> scales, decoded;
                const int kv_dim = whole.kv_dim();
                for (const bool value : {false, true}) {
                    const std::vector<float>& fresh = value ? whole.v_new : whole.k_new;
                    test::store_rows(t, {fresh.begin(), fresh.begin() + first * kv_dim}, kv_dim,
                                     s.n_kv_heads, bytes, scales, decoded);
                    std::vector<uint8_t>& rows = value ? later.v : later.k;
                    rows.insert(rows.end(), bytes.begin(), bytes.end());
                    std::vector<float>& rest = value ? later.v_new : later.k_new;
                    rest.assign(fresh.begin() + first * kv_dim, fresh.end());
                }
                later.context_positions.insert(later.context_positions.end(),
                                               whole.positions.begin(),
                                               whole.positions.begin() + first);
                later.positions.assign(whole.positions.begin() + first, whole.positions.end());
                later.q.assign(whole.q.begin() + first * whole.q_dim(), whole.q.end());
                const Result got = attend(backend, later);
                const std::vector<float> tail(want.out.begin() + first * whole.q_dim(),
                                              want.out.end());
                QVERIFY2(same_bits(got.out, tail), qPrintable(QString("first %1").arg(first)));
            }
        }
    }

    // f16 and bf16 rows read as stored give the bits of the same rows decoded to f32 first: on
    // `cpu:fast` (which reads them directly) and on the reference (which decodes them, in
    // parallel over the rows).
    void stored_halves_give_the_bits_of_decoded_rows() {
        for (const KvType t : {KvType::F16, KvType::BF16}) {
            const AttentionShape s{300, 3, 8, 2, 48, 0, t, t, true, true};
            const AttentionInputs stored = test::make_attention_inputs(s, 23);
            AttentionInputs decoded = stored;
            decoded.s.k_type = decoded.s.v_type = KvType::F32;
            decoded.index.clear();  // all_rows gives the rows in logical order
            for (const bool value : {false, true}) {
                const std::vector<float> rows = test::all_rows(stored, value);
                std::vector<uint8_t>& bytes = value ? decoded.v : decoded.k;
                bytes.resize(size_t(s.rows) * stored.kv_dim() * sizeof(float));
                std::memcpy(bytes.data(), rows.data(), bytes.size());
            }
            FastCpuBackend fast(2);
            CpuBackend reference(2);
            for (Backend* backend :
                 {static_cast<Backend*>(&fast), static_cast<Backend*>(&reference)}) {
                const Result a = attend(*backend, stored), b = attend(*backend, decoded);
                QVERIFY2(same_bits(a.out, b.out), backend->name().data());
                QVERIFY2(same_bits(a.mass, b.mass), backend->name().data());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestFastAttention)
#include "test_fast_attention.moc"
