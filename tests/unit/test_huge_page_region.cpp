// Memory for what a decode streams every token (core/io/huge_page_region.h): a region starts at
// a huge-page boundary, holds exactly the bytes asked for, zeroed and writable to the last; an
// empty or moved-from region holds nothing. The host's K/V planes that can hold a huge page are
// such regions, smaller ones plain 64-byte aligned memory, both zeroed.
#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "core/cache/kv_row_device.h"
#include "core/io/huge_page_region.h"

using namespace kvw;

namespace {

bool all_zero(const uint8_t* p, size_t n) {
    return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace

class TestHugePageRegion : public QObject {
    Q_OBJECT

private slots:
    void a_region_is_aligned_zeroed_and_writable_to_its_last_byte() {
        for (const size_t bytes : {size_t(1), size_t(4096), kHugePageBytes - 1, kHugePageBytes,
                                   kHugePageBytes + 1, 2 * kHugePageBytes + 12345}) {
            const HugePageRegion region(bytes);
            QCOMPARE(region.size(), bytes);
            QVERIFY(region.data() != nullptr);
            QCOMPARE(address(region.data()) % kHugePageBytes, uintptr_t(0));
            QVERIFY(all_zero(region.data(), bytes));
            for (size_t i = 0; i < bytes; ++i) region.data()[i] = uint8_t(i * 131 + 7);
            for (size_t i = 0; i < bytes; i += 997)
                QCOMPARE(region.data()[i], uint8_t(i * 131 + 7));
            QCOMPARE(region.data()[bytes - 1], uint8_t((bytes - 1) * 131 + 7));
        }
    }

    void empty_and_moved_from_regions_hold_nothing() {
        const HugePageRegion none;
        QVERIFY(none.data() == nullptr);
        QCOMPARE(none.size(), size_t(0));
        QVERIFY(HugePageRegion(0).data() == nullptr);

        HugePageRegion a(kHugePageBytes + 1);
        a.data()[kHugePageBytes] = 42;
        uint8_t* const held = a.data();
        HugePageRegion b(std::move(a));
        QVERIFY(a.data() == nullptr);
        QCOMPARE(a.size(), size_t(0));
        QCOMPARE(b.data(), held);
        QCOMPARE(b.data()[kHugePageBytes], uint8_t(42));

        HugePageRegion c(100);
        c = std::move(b);
        QCOMPARE(c.data(), held);
        QCOMPARE(c.size(), kHugePageBytes + 1);
        QVERIFY(b.data() == nullptr);
    }

    void the_hosts_large_planes_sit_in_huge_page_regions() {
        KvRowDevice& host = host_row_device();
        const size_t sizes[] = {kHugePageBytes + 4097, 3 * kHugePageBytes, 1000, 64 * 1024};
        for (const size_t bytes : sizes) {
            DeviceBytes block(host, bytes);
            auto* p = block.as<uint8_t>();
            QVERIFY(p != nullptr);
            QCOMPARE(address(p) % (bytes >= kHugePageBytes ? kHugePageBytes : 64), uintptr_t(0));
            QVERIFY(all_zero(p, bytes));
            std::fill(p, p + bytes, uint8_t(0xa5));
            QCOMPARE(p[bytes - 1], uint8_t(0xa5));
        }
        // Released and allocated again: the host hands out zeroed memory every time.
        DeviceBytes again(host, 3 * kHugePageBytes);
        QVERIFY(all_zero(again.as<uint8_t>(), 3 * kHugePageBytes));
    }
};

QTEST_APPLESS_MAIN(TestHugePageRegion)
#include "test_huge_page_region.moc"
