#pragma once
// Shared by the kernel tests (tests/unit/test_forward_bodies, tests/gpu/test_forward_kernels):
// two float arrays compared bit for bit, the first difference as a message.
#include <QString>
#include <QtTest>

#include <bit>
#include <cstdint>
#include <vector>

namespace kvw::test {

// The first index where got and want differ in their bits, as a message; empty when none does.
inline QString first_difference(const std::vector<float>& got, const std::vector<float>& want) {
    if (got.size() != want.size())
        return QString("%1 values, expected %2").arg(got.size()).arg(want.size());
    for (size_t i = 0; i < got.size(); ++i)
        if (std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(want[i]))
            return QString("[%1]: %2, expected %3")
                .arg(i)
                .arg(double(got[i]), 0, 'g', 9)
                .arg(double(want[i]), 0, 'g', 9);
    return {};
}

}  // namespace kvw::test

#define EXPECT_SAME_BITS(got, want, what)                                      \
    do {                                                                       \
        const QString diff_ = kvw::test::first_difference(got, want);          \
        if (!diff_.isEmpty()) QFAIL(qPrintable(QString(what) + ": " + diff_)); \
    } while (0)
