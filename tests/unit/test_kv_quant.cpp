// The K/V storage encodings of core/math/kv_quant.h against independent references written by
// tests/data/make_kv_quant.py: FP8 E4M3 by ml_dtypes' float8_e4m3fn, int8 by numpy from the
// definition. Bit for bit where the format defines the result (codes, scales, decoded values);
// error bounds stated for the round trip of random values.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "core/math/kv_quant.h"
#include "tests/testdata.h"

using namespace kvw;

namespace {

constexpr int kGroup = 16;  // values per scale in the generated groups

template <class T>
std::vector<T> read_array(const char* name) {
    std::ifstream f(test::testdata_path(std::string("kv_quant/") + name), std::ios::binary);
    if (!f) qFatal("missing test data kv_quant/%s", name);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(f)),
                                  std::istreambuf_iterator<char>());
    std::vector<T> out(bytes.size() / sizeof(T));
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    return out;
}

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

// Equal bit patterns, or both NaN (NaN payloads are not part of either format's definition).
bool same_float(float a, float b) { return (std::isnan(a) && std::isnan(b)) || bits(a) == bits(b); }

QString where(size_t group, int i, double x) {
    return QString("group %1 value %2 (input %3)").arg(group).arg(i).arg(x, 0, 'g', 9);
}

}  // namespace

class TestKvQuant : public QObject {
    Q_OBJECT

private slots:
    void e4m3_cast_matches_ml_dtypes_bit_for_bit() {
        const auto in = read_array<float>("e4m3_in.f32");
        const auto expected = read_array<uint8_t>("e4m3_cast.u8");
        QCOMPARE(in.size(), expected.size());
        QVERIFY(in.size() > 20000);
        for (size_t i = 0; i < in.size(); ++i)
            QVERIFY2(float_to_e4m3(in[i]) == expected[i],
                     qPrintable(QString("%1 -> 0x%2, ml_dtypes 0x%3")
                                    .arg(double(in[i]), 0, 'g', 9)
                                    .arg(float_to_e4m3(in[i]), 2, 16, QChar('0'))
                                    .arg(expected[i], 2, 16, QChar('0'))));
    }

    void every_e4m3_code_decodes_as_ml_dtypes_does() {
        const auto expected = read_array<float>("e4m3_codes.f32");
        QCOMPARE(expected.size(), size_t(256));
        for (int c = 0; c < 256; ++c)
            QVERIFY2(same_float(e4m3_to_float(uint8_t(c)), expected[size_t(c)]),
                     qPrintable(QString("code 0x%1").arg(c, 2, 16, QChar('0'))));
    }

    void int8_groups_match_numpy_bit_for_bit() {
        const auto x = read_array<float>("groups.f32");
        const auto scale = read_array<float>("int8_scale.f32");
        const auto q = read_array<int8_t>("int8_q.i8");
        const auto out = read_array<float>("int8_out.f32");
        QCOMPARE(x.size(), scale.size() * kGroup);
        QCOMPARE(q.size(), x.size());
        for (size_t g = 0; g < scale.size(); ++g) {
            int8_t codes[kGroup];
            QuantStats st;
            const float s = int8_encode_group(&x[g * kGroup], kGroup, codes, st);
            QVERIFY2(bits(s) == bits(scale[g]), qPrintable(QString("scale of group %1").arg(g)));
            float decoded[kGroup];
            kv_decode_row(KvType::Int8, codes, &s, kGroup, 1, decoded);
            for (int i = 0; i < kGroup; ++i) {
                const size_t at = g * kGroup + size_t(i);
                QVERIFY2(codes[i] == q[at], qPrintable(where(g, i, x[at])));
                QVERIFY2(same_float(decoded[i], out[at]), qPrintable(where(g, i, x[at])));
            }
        }
    }

    void fp8_groups_match_ml_dtypes_bit_for_bit() {
        const auto x = read_array<float>("groups.f32");
        const auto scale = read_array<float>("fp8_scale.f32");
        const auto code = read_array<uint8_t>("fp8_code.u8");
        const auto out = read_array<float>("fp8_out.f32");
        QCOMPARE(x.size(), scale.size() * kGroup);
        for (size_t g = 0; g < scale.size(); ++g) {
            uint8_t codes[kGroup];
            QuantStats st;
            const float s = fp8_encode_group(&x[g * kGroup], kGroup, codes, st);
            QVERIFY2(bits(s) == bits(scale[g]), qPrintable(QString("scale of group %1").arg(g)));
            float decoded[kGroup];
            kv_decode_row(KvType::Fp8E4M3, codes, &s, kGroup, 1, decoded);
            for (int i = 0; i < kGroup; ++i) {
                const size_t at = g * kGroup + size_t(i);
                QVERIFY2(codes[i] == code[at], qPrintable(where(g, i, x[at])));
                QVERIFY2(same_float(decoded[i], out[at]), qPrintable(where(g, i, x[at])));
            }
        }
    }

    // Only infinities can exceed a scale set by the finite amax, and every NaN is counted.
    void counters_count_infinities_as_saturated_and_nan_inputs() {
        const auto x = read_array<float>("groups.f32");
        uint64_t infinities = 0, nans = 0;
        for (float v : x) {
            infinities += std::isinf(v) ? 1 : 0;
            nans += std::isnan(v) ? 1 : 0;
        }
        QVERIFY(infinities > 0 && nans > 0);
        for (KvType t : {KvType::Int8, KvType::Fp8E4M3}) {
            QuantStats st;
            std::vector<uint8_t> codes(static_cast<size_t>(kGroup));
            float s = 0;
            for (size_t at = 0; at < x.size(); at += kGroup)
                kv_encode_row(t, &x[at], kGroup, 1, codes.data(), &s, st);
            QCOMPARE(st.saturated, infinities);
            QCOMPARE(st.nan_inputs, nans);
        }
        // f16 overflows past 65504 (to infinity) count as saturated; infinities given do not.
        QuantStats st;
        const float big[4] = {70000.0f, -1e30f, INFINITY, 1.0f};
        uint16_t h[4];
        kv_encode_row(KvType::F16, big, 4, 1, h, nullptr, st);
        QCOMPARE(st.saturated, uint64_t(2));
    }

    // Bounds of the round trip for finite inputs: int8 within half a step (scale / 2), FP8
    // within half an E4M3 step of the scaled value (2^-4 relative for normals, 2^-10 absolute
    // below 2^-6), both times the scale; f16 / bf16 within half an ulp of their mantissas.
    void round_trip_errors_stay_within_half_a_step() {
        std::mt19937 rng(5);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::uniform_real_distribution<float> exponent(-6.0f, 4.0f);
        std::vector<float> x(size_t(kGroup) * 4), y(x.size());
        std::vector<uint8_t> code(x.size() * 4);
        float scales[4];
        for (int rep = 0; rep < 500; ++rep) {
            for (float& v : x) v = normal(rng) * std::pow(10.0f, exponent(rng));
            for (KvType t : {KvType::F16, KvType::BF16, KvType::Int8, KvType::Fp8E4M3}) {
                QuantStats st;
                kv_encode_row(t, x.data(), int(x.size()), 4, code.data(), scales, st);
                kv_decode_row(t, code.data(), scales, int(x.size()), 4, y.data());
                QCOMPARE(st.saturated, uint64_t(0));
                for (size_t i = 0; i < x.size(); ++i) {
                    const double s = double(scales[i / kGroup]);
                    const double a = std::fabs(double(x[i]));
                    double bound = 0;
                    switch (t) {
                        case KvType::F16: bound = std::max(a * 0x1p-11, 0x1p-25); break;
                        case KvType::BF16: bound = a * 0x1p-8; break;
                        case KvType::Int8: bound = s * 0.5 * (1 + 1e-6); break;
                        case KvType::Fp8E4M3:
                            bound = std::max(a * 0x1p-4, s * 0x1p-10) * (1 + 1e-6);
                            break;
                        case KvType::F32: break;
                    }
                    QVERIFY2(std::fabs(double(y[i]) - double(x[i])) <= bound,
                             qPrintable(QString("%1: %2 -> %3")
                                            .arg(kv_type_scaled(t) ? "scaled" : "half")
                                            .arg(double(x[i]), 0, 'g', 9)
                                            .arg(double(y[i]), 0, 'g', 9)));
                }
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestKvQuant)
#include "test_kv_quant.moc"
