// The {value, name} tables (core/names/enum_names.h) that every parser, menu and message reads:
// each covers every value of its enum exactly once, names are unique, and a name reads back as
// its value.
#include <QtTest>

#include <set>
#include <string>

#include "core/cache/cache_layout.h"
#include "core/cache/kv_storage.h"
#include "core/cache/ring_options.h"
#include "core/state/rope_policy.h"

using namespace kvw;

namespace {

// `last` is the enum's last value: the table must hold 0..last, each once.
template <typename Enum, size_t N>
void check_table(const EnumName<Enum> (&table)[N], Enum last) {
    std::set<int> values;
    std::set<std::string> names;
    for (const EnumName<Enum>& row : table) {
        QVERIFY(values.insert(int(row.value)).second);
        QVERIFY2(names.insert(row.name).second, row.name);
        QCOMPARE(std::string(name_in(table, row.value)), std::string(row.name));
        QVERIFY(value_in(table, row.name) == row.value);
    }
    QCOMPARE(int(values.size()), int(last) + 1);
    QCOMPARE(*values.rbegin(), int(last));
    QVERIFY(!value_in(table, "").has_value());
    QVERIFY(!value_in(table, std::string(table[0].name) + "x").has_value());
}

}  // namespace

class TestEnumNames : public QObject {
    Q_OBJECT
private slots:
    void every_table_covers_its_enum_once() {
        check_table(kCacheLayoutNames, CacheLayout::Ring);
        check_table(kRingModeNames, RingMode::Lut);
        check_table(kRopePolicyNames, RopePolicy::Original);
        check_table(kKvTypeNames, KvType::Fp8E4M3);
    }

    void lists_join_the_names_in_table_order() {
        QCOMPARE(names_in(kRingModeNames, "|"), std::string("roll|pointer|lut"));
        QCOMPARE(names_in(kRopePolicyNames, ", "), std::string("final_index, reindex, original"));
        QCOMPARE(std::string(name_in(kKvTypeNames, KvType(200))), std::string("?"));
    }
};

QTEST_GUILESS_MAIN(TestEnumNames)
#include "test_enum_names.moc"
