// A checkpoint's frozen cache (docs/ARCHITECTURE.md §16): RowBuffer::frozen keeps the rows in
// use in blocks of kRevisionBlockRows physical rows, copies only the blocks whose rows changed
// since the frozen copy before it and shares the others, and thawed() gives back every byte,
// scale and clip counter of those rows. The reference is the live buffer the copies were made
// from, read row by row here, and a count of the blocks each write or move touched.
#include <QtTest>

#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "core/cache/row_buffer.h"

using namespace kvw;

namespace {

constexpr int kDim = 8;
constexpr int kCapacity = 700;

std::vector<float> random_rows(int n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    std::vector<float> x(size_t(n) * kDim);
    for (float& v : x) v = normal(rng);
    x[0] = 1.0e30f;  // beyond f16: an f16 row's clip counter is not 0
    return x;
}

// Whether `b`'s rows [0, rows) of `layer` are `a`'s: stored bytes, scales and clip counters.
bool same_rows(const RowBuffer& a, const RowBuffer& b, int layer, int rows) {
    std::vector<int> all(static_cast<size_t>(rows));
    for (int r = 0; r < rows; ++r) all[size_t(r)] = r;
    std::vector<uint8_t> stored_a(size_t(rows) * a.row_bytes()), stored_b(stored_a.size());
    a.stored_rows(layer, all, stored_a.data());
    b.stored_rows(layer, all, stored_b.data());
    if (stored_a != stored_b) return false;
    for (int r = 0; r < rows; ++r)
        if (a.k_saturated(layer, r) != b.k_saturated(layer, r) ||
            a.v_saturated(layer, r) != b.v_saturated(layer, r))
            return false;
    return true;
}

std::set<const void*> blocks_of(const RowBuffer& frozen) {
    std::set<const void*> out;
    frozen.for_each_frozen_block([&](const void* block, uint64_t) { out.insert(block); });
    return out;
}

size_t new_blocks(const RowBuffer& later, const RowBuffer& earlier) {
    const std::set<const void*> before = blocks_of(earlier);
    size_t n = 0;
    for (const void* b : blocks_of(later)) n += before.count(b) ? 0 : 1;
    return n;
}

}  // namespace

class TestRowBufferFrozen : public QObject {
    Q_OBJECT
private slots:
    void frozen_copies_share_what_did_not_change_data() {
        QTest::addColumn<int>("k_type");
        QTest::addColumn<int>("v_type");
        QTest::newRow("f32") << int(KvType::F32) << int(KvType::F32);
        QTest::newRow("int8 K, f16 V") << int(KvType::Int8) << int(KvType::F16);
        QTest::newRow("fp8 K, bf16 V") << int(KvType::Fp8E4M3) << int(KvType::BF16);
    }
    void frozen_copies_share_what_did_not_change() {
        QFETCH(int, k_type);
        QFETCH(int, v_type);
        const KvStorage storage{KvType(k_type), KvType(v_type), 2};
        RowBuffer live(2, kDim, kCapacity, storage);
        const std::vector<float> k = random_rows(600, 1), v = random_rows(600, 2);
        live.write(0, 0, {k.data(), v.data()}, 600);
        live.write(1, 0, {v.data(), k.data()}, 300);
        const std::vector<int> in_use{600, 300};  // blocks: 3 in layer 0, 2 in layer 1

        const RowBuffer first = live.frozen(in_use, nullptr);
        QVERIFY(first.is_frozen());
        QCOMPARE(blocks_of(first).size(), size_t(5));
        const RowBuffer thawed_first = first.thawed(host_row_device());
        QVERIFY(same_rows(live, thawed_first, 0, 600));
        QVERIFY(same_rows(live, thawed_first, 1, 300));
        QCOMPARE(thawed_first.capacity(), kCapacity);

        // Nothing changed: everything shared. One row of layer 0's first block rewritten: that
        // block alone is copied again.
        QCOMPARE(new_blocks(live.frozen(in_use, &first), first), size_t(0));
        live.write(0, 10, {v.data(), k.data()}, 1);
        const RowBuffer second = live.frozen(in_use, &first);
        QCOMPARE(new_blocks(second, first), size_t(1));
        // A move within layer 1 renews the blocks it wrote (rows 250..259: blocks 0 and 1) and
        // not the one it read from; K alone re-rotated renews its block.
        live.move(1, 250, 270, 10);
        const int shifted[] = {599};
        const int32_t by[] = {3};
        live.rerotate_k(0, shifted, by, 2, RopeParams{});
        const RowBuffer third = live.frozen(in_use, &second);
        QCOMPARE(new_blocks(third, second), size_t(3));
        const RowBuffer thawed_third = third.thawed(host_row_device());
        QVERIFY(same_rows(live, thawed_third, 0, 600));
        QVERIFY(same_rows(live, thawed_third, 1, 300));
        QVERIFY(!same_rows(live, thawed_first, 0, 600));  // so same_rows can tell them apart

        // More rows in use than the earlier copy held: the grown last block is copied, the
        // blocks before it are shared.
        live.write(1, 300, {k.data(), v.data()}, 20);
        const RowBuffer fourth = live.frozen(std::vector<int>{600, 320}, &third);
        QCOMPARE(new_blocks(fourth, third), size_t(1));
        QVERIFY(same_rows(live, fourth.thawed(host_row_device()), 1, 320));
    }

    // A frozen copy of one buffer shares nothing with another buffer's, whatever their shape.
    void another_buffers_blocks_are_not_shared() {
        RowBuffer a(1, kDim, kCapacity), b(1, kDim, kCapacity);
        const std::vector<float> x = random_rows(300, 3);
        a.write(0, 0, {x.data(), x.data()}, 300);
        b.write(0, 0, {x.data(), x.data()}, 300);
        const RowBuffer fa = a.frozen(std::vector<int>{300}, nullptr);
        QCOMPARE(new_blocks(b.frozen(std::vector<int>{300}, &fa), fa), size_t(2));
        // A copy of `a` holds a's rows at a's revisions: shared.
        const RowBuffer a_copy = a;
        QCOMPARE(new_blocks(a_copy.frozen(std::vector<int>{300}, &fa), fa), size_t(0));
    }
};

QTEST_APPLESS_MAIN(TestRowBufferFrozen)
#include "test_row_buffer_frozen.moc"
