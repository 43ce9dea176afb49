// Tick transactions against a plain std::vector<int32_t> model of the sequence: random valid
// and invalid action lists over a thousand ticks, and a fault injected at every primitive.
#include <QtTest>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "core/state/tick.h"
#include "state_fixture.h"

using namespace kvw;
using namespace kvw::test;

namespace {

constexpr int kCapacity = 40;

// The same list applied to the plain sequence: descending positions, adds last.
std::vector<int32_t> apply_reference(std::vector<int32_t> seq, const ActionList& list) {
    std::vector<const Action*> edits;
    std::vector<int32_t> adds;
    for (const Action& a : list) {
        if (const auto* add = std::get_if<AddAction>(&a.op))
            adds.push_back(add->token_id);
        else
            edits.push_back(&a);
    }
    auto key = [](const Action* a) {
        if (const auto* r = std::get_if<ReplacePairAction>(&a->op)) return r->original_pos1;
        if (const auto* in = std::get_if<InsertAction>(&a->op)) return in->pos;
        return std::get<DeleteAction>(a->op).pos;
    };
    std::sort(edits.begin(), edits.end(), [&](auto* a, auto* b) { return key(a) > key(b); });
    for (const Action* a : edits) {
        if (const auto* r = std::get_if<ReplacePairAction>(&a->op)) {
            seq.erase(seq.begin() + r->original_pos2);
            seq.erase(seq.begin() + r->original_pos1);
            seq.insert(seq.begin() + r->original_pos1, r->new_token_ids.begin(),
                       r->new_token_ids.end());
        } else if (const auto* in = std::get_if<InsertAction>(&a->op)) {
            seq.insert(seq.begin() + in->pos, in->token_ids.begin(), in->token_ids.end());
        } else {
            seq.erase(seq.begin() + std::get<DeleteAction>(a->op).pos);
        }
    }
    seq.insert(seq.end(), adds.begin(), adds.end());
    return seq;
}

// A list whose spans are disjoint and in range and whose growth fits.
ActionList random_valid_list(std::mt19937& rng, int rows) {
    ActionList list;
    std::vector<bool> used(static_cast<size_t>(rows), false);
    const bool shrink = rows > kCapacity - 10;
    const int edits = std::uniform_int_distribution<int>(0, 3)(rng);
    for (int e = 0; e < edits; ++e) {
        const int a = int(rng() % unsigned(rows));
        const int b = std::min(rows - 1, a + 1 + int(rng() % 3));  // pos2: 1 to 3 after pos1
        const int kind = int(rng() % 5);  // 0-1 delete, 2 insert, 3-4 replace_pair
        const bool single = kind <= 2 || b == a;
        const int last = single ? a : b;
        if (std::any_of(used.begin() + a, used.begin() + last + 1, [](bool u) { return u; }))
            continue;
        std::fill(used.begin() + a, used.begin() + last + 1, true);
        if (kind == 2 && !shrink)
            list.push_back({InsertAction{a, random_tokens(rng, 1 + int(rng() % 2))}, {}});
        else if (single)
            list.push_back({DeleteAction{a}, {}});
        else
            list.push_back(
                {ReplacePairAction{a, b, random_tokens(rng, shrink ? 1 : 1 + int(rng() % 3))}, {}});
    }
    const int adds = shrink ? 0 : int(rng() % 3);
    for (int i = 0; i < adds || list.empty(); ++i)
        list.push_back({AddAction{random_tokens(rng, 1)[0]}, {}});
    return list;
}

// A valid list spoiled in one way the pre-flight must catch.
ActionList random_invalid_list(std::mt19937& rng, int rows) {
    ActionList list = random_valid_list(rng, rows);
    switch (rng() % 5) {
        case 0: list.push_back({DeleteAction{rows + int(rng() % 5)}, {}}); break;
        case 1: list.push_back({AddAction{tiny().vocab() + int(rng() % 9)}, {}}); break;
        case 2: list.push_back({ReplacePairAction{1, 1, {5}}, {}}); break;
        case 3: list.push_back({DeleteAction{0}, {}}), list.push_back({DeleteAction{0}, {}}); break;
        default:
            for (int i = 0; i < kCapacity; ++i) list.push_back({AddAction{7}, {}});
    }
    return list;
}

struct Record {
    int32_t token;
    int64_t born;
};

void check_aligned(const StateManager& s, const std::vector<int32_t>& ref,
                   std::vector<Record>& history) {
    for (int l = 0; l < s.n_layers(); ++l) {
        QCOMPARE(s.tokens(l), ref);
        QCOMPARE(s.cache().rows(l), int(ref.size()));
    }
    QVERIFY(all_passed(s.check_invariants()));
    // The ledger only grows and never rewrites a record.
    QVERIFY(s.ledger().size() >= int64_t(history.size()));
    for (size_t i = 0; i < history.size(); ++i) {
        QCOMPARE(s.ledger().at(int64_t(i)).token_id, history[i].token);
        QCOMPARE(s.ledger().at(int64_t(i)).born_tick, history[i].born);
    }
    for (int64_t i = int64_t(history.size()); i < s.ledger().size(); ++i)
        history.push_back({s.ledger().at(i).token_id, s.ledger().at(i).born_tick});
}

}  // namespace

class TestStateTicks : public QObject {
    Q_OBJECT
private slots:
    void random_ticks_match_reference_sequence() {
        std::mt19937 rng(2024);
        StateManager s = make_state(kCapacity);
        std::vector<int32_t> ref = random_tokens(rng, 12);
        s.append(ref, EntryKind::Prompt, 0);
        std::vector<Record> history;
        check_aligned(s, ref, history);
        int rejected = 0, applied = 0;
        for (int tick = 1; tick <= 1000; ++tick) {
            const bool valid = rng() % 4 != 0;
            const ActionList list = valid ? random_valid_list(rng, int(ref.size()))
                                          : random_invalid_list(rng, int(ref.size()));
            const uint64_t before = s.state_hash();
            const TickResult r = apply_action_list(s, list, tick);
            QVERIFY(!r.aborted);
            if (valid) {
                QVERIFY2(!r.rejected, r.rejections.empty() ? "" : r.rejections[0].message.c_str());
                ref = apply_reference(ref, list);
                ++applied;
            } else {
                QVERIFY(r.rejected);
                QCOMPARE(s.state_hash(), before);
                ++rejected;
            }
            check_aligned(s, ref, history);
            if (QTest::currentTestFailed()) QFAIL(qPrintable(QString("tick %1").arg(tick)));
        }
        QVERIFY(rejected > 100 && applied > 600);
        s.recompute_suffix(0);
        QVERIFY(max_drift(s.measure_drift()) <= 1e-5f);
    }

    // replace_pair = 3 primitives, delete = 1, the adds = 1 append: a fault at each of the five.
    void fault_at_every_primitive_aborts_and_rebuilds() {
        std::mt19937 rng(7);
        const std::vector<int32_t> prompt = random_tokens(rng, 10);
        const ActionList list{{ReplacePairAction{6, 7, random_tokens(rng, 2)}, {}},
                              {DeleteAction{3}, {}},
                              {InsertAction{1, random_tokens(rng, 2)}, {}},
                              {AddAction{11}, {}},
                              {AddAction{12}, {}}};
        for (int k = 1; k <= 7; ++k) {
            StateManager s = make_state(kCapacity);
            s.append(prompt, EntryKind::Prompt, 0);
            std::vector<Record> history;
            check_aligned(s, prompt, history);
            s.inject_fault_at(k);
            const TickResult r = apply_action_list(s, list, 1);
            if (k == 7) {  // past the last primitive: the tick goes through
                QVERIFY(!r.aborted);
                check_aligned(s, apply_reference(prompt, list), history);
                continue;
            }
            QVERIFY(r.aborted);
            QVERIFY(r.rebuilt);
            QVERIFY(!r.failed_primitive.empty());
            QCOMPARE(r.failed_action, k <= 3 ? 0 : k == 4 ? 1 : k == 5 ? 2 : -1);
            check_aligned(s, prompt, history);
            QCOMPARE(max_drift(s.measure_drift()), 0.0f);
            // The records born in the aborted tick stay in the ledger, dead at that tick.
            for (int64_t i = int64_t(prompt.size()); i < s.ledger().size(); ++i)
                QCOMPARE(s.ledger().at(i).died_tick, int64_t(1));
        }
    }

    void desync_hook_turns_invariants_red() {
        std::mt19937 rng(8);
        StateManager s = make_state(kCapacity);
        s.append(random_tokens(rng, 6), EntryKind::Prompt, 0);
        s.debug_desync_row(2, 3);
        const std::vector<InvariantResult> results = s.check_invariants();
        QVERIFY(!all_passed(results));
        for (const InvariantResult& r : results)
            if (!r.passed) QCOMPARE(r.layer, 2);
    }

    // Two records each held twice in one layer: ids_unique names the smaller id at the later
    // of its two rows, as a sort of (id, row) pairs written here finds it.
    void ids_unique_names_the_first_duplicate_in_id_order() {
        std::mt19937 rng(9);
        StateManager s = make_state(kCapacity);
        s.append(random_tokens(rng, 12), EntryKind::Prompt, 0);
        s.debug_desync_row(1, 7);  // row 7 takes row 8's record
        s.debug_desync_row(1, 2);  // row 2 takes row 3's record
        std::vector<std::pair<int64_t, int>> sorted;
        const std::vector<int64_t>& ids = s.layer_map(1).pos2ledger;
        for (size_t r = 0; r < ids.size(); ++r) sorted.emplace_back(ids[r], int(r));
        std::sort(sorted.begin(), sorted.end());
        std::pair<int64_t, int> want{-1, -1};
        for (size_t i = 1; i < sorted.size() && want.first < 0; ++i)
            if (sorted[i].first == sorted[i - 1].first) want = sorted[i];
        QVERIFY(want.first >= 0);
        for (const InvariantResult& r : s.check_invariants()) {
            if (r.name != "ids_unique") continue;
            QCOMPARE(r.passed, r.layer != 1);
            if (r.passed) continue;
            QCOMPARE(r.row, want.second);
            QVERIFY2(r.detail.find("record " + std::to_string(want.first) + " held twice") !=
                         std::string::npos,
                     r.detail.c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestStateTicks)
#include "test_state_ticks.moc"
