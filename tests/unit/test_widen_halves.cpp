// The CPU backend's vector widening of f16 / bf16 rows (core/backend/cpu/widen_halves.h) against
// core/math/half.h's scalar conversions, bit for bit, on every 16-bit pattern (zeros, subnormals,
// infinities, signalling and quiet NaNs with their payloads) and on rows whose length leaves a
// tail of every size.
#include <QtTest>

#include <bit>
#include <cstdint>
#include <vector>

#include "core/backend/cpu/cpu_features.h"
#include "core/backend/cpu/widen_halves.h"
#include "core/math/half.h"

using namespace kvw;

namespace {

std::vector<uint16_t> every_pattern() {
    std::vector<uint16_t> all(65536);
    for (uint32_t i = 0; i < all.size(); ++i) all[i] = uint16_t(i);
    return all;
}

}  // namespace

class TestWidenHalves : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!cpu::cpu_has_avx2()) QSKIP("this CPU lacks AVX2 + F16C");
    }

    void every_pattern_widens_to_the_scalar_bits_data() {
        QTest::addColumn<bool>("bf16");
        QTest::newRow("f16") << false;
        QTest::newRow("bf16") << true;
    }

    void every_pattern_widens_to_the_scalar_bits() {
#if defined(__x86_64__)
        QFETCH(bool, bf16);
        const std::vector<uint16_t> in = every_pattern();
        // Lengths from 1 to 17 at every start, then the whole table: every tail size.
        for (int64_t start = 0; start + 17 <= int64_t(in.size()); start += 4093)
            for (int64_t n = 1; n <= 17; ++n) {
                std::vector<float> got(size_t(n), -1.0f);
                (bf16 ? cpu::widen_bf16_avx2 : cpu::widen_f16_avx2)(in.data() + start, n,
                                                                    got.data());
                for (int64_t i = 0; i < n; ++i) {
                    const uint16_t h = in[size_t(start + i)];
                    const float want = bf16 ? bf16_to_float(h) : fp16_to_float(h);
                    QVERIFY2(
                        std::bit_cast<uint32_t>(got[size_t(i)]) == std::bit_cast<uint32_t>(want),
                        qPrintable(QString("0x%1").arg(h, 4, 16, QChar('0'))));
                }
            }
        std::vector<float> got(in.size());
        (bf16 ? cpu::widen_bf16_avx2 : cpu::widen_f16_avx2)(in.data(), int64_t(in.size()),
                                                            got.data());
        for (size_t i = 0; i < in.size(); ++i) {
            const float want = bf16 ? bf16_to_float(in[i]) : fp16_to_float(in[i]);
            if (std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(want))
                QFAIL(qPrintable(QString("0x%1: 0x%2, scalar 0x%3")
                                     .arg(in[i], 4, 16, QChar('0'))
                                     .arg(std::bit_cast<uint32_t>(got[i]), 8, 16, QChar('0'))
                                     .arg(std::bit_cast<uint32_t>(want), 8, 16, QChar('0'))));
        }
#endif
    }
};

QTEST_GUILESS_MAIN(TestWidenHalves)
#include "test_widen_halves.moc"
