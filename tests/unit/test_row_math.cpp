// Row maths and kernels against independent references: half conversions against the F16C
// instructions, bf16 rounding against a float64 nearest-even choice, RoPE re-rotation against
// direct rotation, and every matmul kernel against a float64 loop.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/cpu/matmul_kernels.h"
#include "core/math/half.h"
#include "core/math/rope.h"

using namespace kvw;

Q_DECLARE_METATYPE(kvw::DType)

namespace {

uint32_t bits_of(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

float float_of(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

#if defined(__x86_64__)
__attribute__((target("f16c"))) float hw_half_to_float(uint16_t h) { return _cvtsh_ss(h); }
__attribute__((target("f16c"))) uint16_t hw_float_to_half(float f) {
    return uint16_t(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}
bool have_f16c() { return __builtin_cpu_supports("f16c"); }
#endif

// Floats that stress the conversions: random bit patterns plus, for every half, the exact tie
// between it and the next half (and the floats either side of that tie), in the normal and the
// subnormal range, and the special values.
std::vector<float> conversion_probes() {
    std::vector<float> probes;
    std::mt19937_64 rng(12345);
    for (int i = 0; i < 2000000; ++i) probes.push_back(float_of(uint32_t(rng())));
    auto around = [&](double tie) {
        for (float sign : {1.0f, -1.0f}) {
            const uint32_t u = bits_of(sign * float(tie));  // ties are exact floats
            for (uint32_t v : {u - 1, u, u + 1}) probes.push_back(float_of(v));
        }
    };
    for (int m = 0; m < 1024; ++m) around(std::ldexp(m + 0.5, -24));  // subnormal halves
    for (int e = -14; e <= 15; ++e)                                   // normal halves
        for (int m = 0; m < 1024; ++m) around(std::ldexp(1024 + m + 0.5, e - 10));
    for (float f : {0.0f, -0.0f, 65504.0f, 65520.0f, 6.1035156e-05f, 5.9604645e-08f, INFINITY,
                    -INFINITY, NAN, -NAN})
        probes.push_back(f);
    return probes;
}

// bf16 nearest-even, decided in double between the two bf16 neighbours of f.
uint16_t reference_bf16(float f) {
    const uint32_t u = bits_of(f);
    const uint32_t lo = u & 0xffff0000u;
    if ((u & 0xffffu) == 0) return uint16_t(lo >> 16);
    const double dlo = float_of(lo);
    const double dhi = (lo & 0x7fffffffu) == 0x7f7f0000u
                           ? std::ldexp(double(f > 0 ? 1 : -1), 128)  // rounds to infinity
                           : double(float_of(lo + 0x10000u));
    const double dist_lo = std::fabs(double(f) - dlo), dist_hi = std::fabs(double(f) - dhi);
    if (dist_lo < dist_hi || (dist_lo == dist_hi && ((lo >> 16) & 1u) == 0))
        return uint16_t(lo >> 16);
    return uint16_t((lo + 0x10000u) >> 16);
}

// Weights with known values: random 16-bit patterns of normal numbers, decoded here by their
// definition (not by core/math/half.h).
struct TestWeight {
    std::vector<uint8_t> bytes;
    std::vector<double> values;
    WeightTensor tensor;
};

TestWeight make_weight(DType dtype, int rows, int cols, std::mt19937_64& rng) {
    TestWeight w;
    const size_t count = size_t(rows) * cols;
    w.bytes.resize(count * dtype_size(dtype));
    w.values.resize(count);
    for (size_t i = 0; i < count; ++i) {
        const int sign = rng() & 1 ? -1 : 1;
        if (dtype == DType::F32) {
            const float f = float(sign * std::ldexp(double(rng() % (1u << 24)), -26));
            std::memcpy(&w.bytes[4 * i], &f, 4);
            w.values[i] = f;
            continue;
        }
        uint16_t h;
        if (dtype == DType::F16) {
            const uint32_t e = 10 + rng() % 6, m = rng() % 1024;  // 2^-5 .. 2^0
            h = uint16_t((sign < 0 ? 0x8000 : 0) | (e << 10) | m);
            w.values[i] = sign * std::ldexp(double(1024 + m), int(e) - 25);
        } else {
            const uint32_t e = 122 + rng() % 6, m = rng() % 128;
            h = uint16_t((sign < 0 ? 0x8000 : 0) | (e << 7) | m);
            w.values[i] = sign * std::ldexp(double(128 + m), int(e) - 134);
        }
        std::memcpy(&w.bytes[2 * i], &h, 2);
    }
    w.tensor.dtype = dtype;
    w.tensor.rows = rows;
    w.tensor.cols = cols;
    w.tensor.data = w.bytes.data();
    return w;
}

}  // namespace

class TestRowMath : public QObject {
    Q_OBJECT

private slots:
    void half_to_float_matches_f16c_for_every_half() {
#if defined(__x86_64__)
        if (!have_f16c()) QSKIP("no F16C on this CPU");
        for (uint32_t h = 0; h < 0x10000; ++h)
            QCOMPARE(bits_of(fp16_to_float(uint16_t(h))), bits_of(hw_half_to_float(uint16_t(h))));
#else
        QSKIP("F16C is x86 only");
#endif
    }

    void float_to_half_matches_f16c() {
#if defined(__x86_64__)
        if (!have_f16c()) QSKIP("no F16C on this CPU");
        for (float f : conversion_probes())
            if (float_to_fp16(f) != hw_float_to_half(f))
                QFAIL(qPrintable(QString("float bits %1: %2 vs hardware %3")
                                     .arg(bits_of(f), 8, 16, QChar('0'))
                                     .arg(float_to_fp16(f), 4, 16)
                                     .arg(hw_float_to_half(f), 4, 16)));
#else
        QSKIP("F16C is x86 only");
#endif
    }

    void bf16_rounds_to_nearest_even() {
        for (float f : conversion_probes()) {
            if (std::isnan(f)) {
                QVERIFY(std::isnan(bf16_to_float(float_to_bf16(f))));
                continue;
            }
            QCOMPARE(float_to_bf16(f), reference_bf16(f));
        }
        for (uint32_t b = 0; b < 0x10000; ++b) {  // widening is exact: bf16 -> float -> bf16
            if (std::isnan(bf16_to_float(uint16_t(b)))) continue;
            QCOMPARE(bits_of(bf16_to_float(uint16_t(b))), b << 16);
            QCOMPARE(float_to_bf16(bf16_to_float(uint16_t(b))), uint16_t(b));
        }
    }

    void rerotate_equals_rotation_at_new_position() {
        std::mt19937_64 rng(5);
        std::normal_distribution<float> normal;
        for (RopeLayout layout : {RopeLayout::Interleaved, RopeLayout::HalfSplit})
            for (int hd : {64, 128})
                for (float theta : {10000.0f, 500000.0f})
                    for (auto [p, delta] :
                         {std::pair{0, 5}, {100, -37}, {4000, 96}, {16000, -9000}, {7, 32000}}) {
                        std::vector<float> x(static_cast<size_t>(hd));
                        for (float& v : x) v = normal(rng);
                        std::vector<float> direct = x, shifted = x;
                        rope_rotate(direct.data(), hd, p + delta, theta, layout);
                        rope_rotate(shifted.data(), hd, p, theta, layout);
                        rope_rerotate(shifted.data(), hd, delta, theta, layout);
                        double diff = 0.0, norm = 0.0;
                        for (int i = 0; i < hd; ++i) {
                            diff += double(shifted[i] - direct[i]) * (shifted[i] - direct[i]);
                            norm += double(x[i]) * x[i];
                        }
                        QVERIFY2(std::sqrt(diff / norm) < 1e-6,
                                 qPrintable(QString("p %1 delta %2: %3")
                                                .arg(p)
                                                .arg(delta)
                                                .arg(std::sqrt(diff / norm))));
                    }
    }

    // Scaled RoPE keeps the angle linear in the position, so a K-shift still composes.
    void rerotate_composes_when_scaled() {
        std::mt19937_64 rng(6);
        std::normal_distribution<float> normal;
        const int hd = 64;
        std::vector<float> divisors(size_t(hd / 2));
        for (int i = 0; i < hd / 2; ++i)
            divisors[size_t(i)] =
                float(llama3_freq_divisor(i, hd, 500000.0f, 8.0, 1.0, 4.0, 8192.0));
        QCOMPARE(divisors.front(), 1.0f);
        QCOMPARE(divisors.back(), 8.0f);
        for (const RopeParams rope :
             {RopeParams{500000.0f, RopeLayout::HalfSplit, 0.25, nullptr},
              RopeParams{500000.0f, RopeLayout::HalfSplit, 1.0, divisors.data()}})
            for (auto [p, delta] : {std::pair{100, -37}, {16000, -9000}, {7, 32000}}) {
                std::vector<float> x(static_cast<size_t>(hd));
                for (float& v : x) v = normal(rng);
                std::vector<float> direct = x, shifted = x, back = x;
                rope_rotate(direct.data(), hd, p + delta, rope);
                rope_rotate(shifted.data(), hd, p, rope);
                rope_rerotate(shifted.data(), hd, delta, rope);
                rope_rotate(back.data(), hd, p, rope);
                rope_unrotate(back.data(), hd, p, rope);
                double diff = 0.0, undo = 0.0, norm = 0.0;
                for (int i = 0; i < hd; ++i) {
                    diff += double(shifted[i] - direct[i]) * (shifted[i] - direct[i]);
                    undo += double(back[i] - x[i]) * (back[i] - x[i]);
                    norm += double(x[i]) * x[i];
                }
                QVERIFY(std::sqrt(diff / norm) < 1e-6);
                QVERIFY(std::sqrt(undo / norm) < 1e-6);
            }
        // Unscaled parameters are the plain rotation, bit for bit.
        std::vector<float> a(size_t(hd), 0.5f), b = a;
        rope_rotate(a.data(), hd, 1234.0, 10000.0f, RopeLayout::Interleaved);
        rope_rotate(b.data(), hd, 1234.0, RopeParams{10000.0f, RopeLayout::Interleaved});
        QVERIFY(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    }

    void matmul_matches_float64_data() {
        QTest::addColumn<DType>("dtype");
        QTest::addColumn<int>("n");
        for (DType d : {DType::F32, DType::F16, DType::BF16})
            for (int n : {1, 3, 8, 37})
                QTest::newRow(qPrintable(
                    QString("%1 n=%2").arg(QString::fromUtf8(dtype_name(d).data())).arg(n)))
                    << d << n;
    }

    void matmul_matches_float64() {
        QFETCH(DType, dtype);
        QFETCH(int, n);
        std::mt19937_64 rng(77 + n);
        // 45 rows: full 8-row and 4-row blocks plus a tail; 203 columns: an 8-column tail.
        for (auto [rows, cols] : {std::pair{45, 203}, {16, 8}, {3, 1024}}) {
            TestWeight w = make_weight(dtype, rows, cols, rng);
            std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
            std::vector<float> x(size_t(n) * cols);
            for (float& v : x) v = uni(rng);

            CpuBackend backend(2);
            std::vector<float> y(size_t(n) * rows), y_scalar(y.size());
            backend.matmul(w.tensor, x.data(), n, y.data());
            cpu::matmul_rows_scalar(w.tensor, x.data(), n, y_scalar.data(), 0, rows);
            for (int t = 0; t < n; ++t)
                for (int r = 0; r < rows; ++r) {
                    double exact = 0.0, magnitude = 0.0;
                    for (int c = 0; c < cols; ++c) {
                        const double prod =
                            w.values[size_t(r) * cols + c] * x[size_t(t) * cols + c];
                        exact += prod;
                        magnitude += std::fabs(prod);
                    }
                    // float32 accumulation: the error is bounded by a few ulps of Σ|w·x|.
                    const double bound = 1e-6 * magnitude + 1e-30;
                    QVERIFY(std::fabs(y[size_t(t) * rows + r] - exact) <= bound);
                    QVERIFY(std::fabs(y_scalar[size_t(t) * rows + r] - exact) <= bound);
                }
            // One token at a time gives the same bits as the batch (what prefill + decode = one
            // pass rests on).
            for (int t = 0; t < n; ++t) {
                std::vector<float> single(static_cast<size_t>(rows));
                backend.matmul(w.tensor, &x[size_t(t) * cols], 1, single.data());
                for (int r = 0; r < rows; ++r) QCOMPARE(single[r], y[size_t(t) * rows + r]);
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestRowMath)
#include "test_row_math.moc"
