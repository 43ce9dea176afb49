// Pre-flight validation: each rule with its boundary cases, and the application order checked
// against plain std::vector reference sequences edited one action at a time.
#include <QtTest>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/state/action_validation.h"

using namespace kvw;

namespace {

// The shape of a plain token sequence (no wLOD gists, no ring): the fields these tests vary.
SequenceShape shape_of(std::vector<int> rows_per_layer, int capacity, int vocab_size) {
    SequenceShape shape;
    shape.rows_per_layer = std::move(rows_per_layer);
    shape.capacity = capacity;
    shape.vocab_size = vocab_size;
    return shape;
}

Action replace(int p1, int p2, std::vector<int32_t> ids, std::vector<int> layers = {}) {
    return Action{ReplacePairAction{p1, p2, std::move(ids)}, std::move(layers)};
}
Action add(int32_t id, std::vector<int> layers = {}) {
    return Action{AddAction{id}, std::move(layers)};
}
Action del(int pos, std::vector<int> layers = {}) {
    return Action{DeleteAction{pos}, std::move(layers)};
}
Action insert(int pos, std::vector<int32_t> ids, std::vector<int> layers = {}) {
    return Action{InsertAction{pos, std::move(ids)}, std::move(layers)};
}

// Rows {10, 10, 8}, capacity 12, 100 tokens.
SequenceShape shape() { return shape_of({10, 10, 8}, 12, 100); }

// The single error a list must produce, checked for rule, action, field and the values that
// its message must quote.
void expect_one(const ActionList& list, const SequenceShape& s, ValidationRule rule, int index,
                const std::string& field, const std::vector<std::string>& quoted) {
    const std::vector<ValidationError> errors = validate_action_list(list, s);
    QCOMPARE(errors.size(), size_t(1));
    const ValidationError& e = errors[0];
    QVERIFY2(e.rule == rule, e.message.c_str());
    QCOMPARE(e.action_index, index);
    QCOMPARE(e.field, field);
    QVERIFY2(e.message.starts_with("action " + std::to_string(index) + " "), e.message.c_str());
    for (const std::string& q : quoted)
        QVERIFY2(e.message.find(q) != std::string::npos, (e.message + " lacks " + q).c_str());
}

bool valid(const ActionList& list, const SequenceShape& s) {
    return validate_action_list(list, s).empty();
}

using Layers = std::vector<std::vector<int32_t>>;

std::vector<int> layers_of(const Action& a, int n_layers) {
    if (!a.layers.empty()) return a.layers;
    std::vector<int> all(static_cast<size_t>(n_layers));
    std::iota(all.begin(), all.end(), 0);
    return all;
}

// Applies a list as given, positions taken literally; reports whether any layer ever held more
// than `capacity` rows. Fails the test on a position outside the layer.
bool apply_literally(Layers& seq, const ActionList& list, int capacity) {
    bool overflow = false;
    for (const Action& a : list) {
        for (const int l : layers_of(a, int(seq.size()))) {
            std::vector<int32_t>& s = seq[size_t(l)];
            if (const auto* r = std::get_if<ReplacePairAction>(&a.op)) {
                if (!(r->original_pos1 >= 0 && r->original_pos1 < r->original_pos2 &&
                      r->original_pos2 < int(s.size())))
                    qFatal("replace out of range");
                s.erase(s.begin() + r->original_pos2);
                s.erase(s.begin() + r->original_pos1);
                s.insert(s.begin() + r->original_pos1, r->new_token_ids.begin(),
                         r->new_token_ids.end());
            } else if (const auto* d = std::get_if<DeleteAction>(&a.op)) {
                if (!(d->pos >= 0 && d->pos < int(s.size()))) qFatal("delete out of range");
                s.erase(s.begin() + d->pos);
            } else {
                s.push_back(std::get<AddAction>(a.op).token_id);
            }
            overflow |= int(s.size()) > capacity;
        }
    }
    return overflow;
}

// Applies the actions one at a time in the given order, translating each original position to
// where that original row is now (rows carry their original index as a tag). Returns false
// when an action refers to a row that an earlier one removed.
bool apply_tracking_shifts(Layers& seq, const ActionList& list, const std::vector<int>& order) {
    struct Row {
        int tag;
        int32_t token;
    };
    std::vector<std::vector<Row>> rows(seq.size());
    for (size_t l = 0; l < seq.size(); ++l)
        for (size_t i = 0; i < seq[l].size(); ++i) rows[l].push_back({int(i), seq[l][i]});
    for (const int index : order) {
        const Action& a = list[size_t(index)];
        for (const int l : layers_of(a, int(seq.size()))) {
            std::vector<Row>& s = rows[size_t(l)];
            auto find = [&](int tag) {
                return std::find_if(s.begin(), s.end(), [&](const Row& r) { return r.tag == tag; });
            };
            if (const auto* r = std::get_if<ReplacePairAction>(&a.op)) {
                auto second = find(r->original_pos2);
                if (second == s.end()) return false;
                s.erase(second);
                auto first = find(r->original_pos1);
                if (first == s.end()) return false;
                auto at = s.erase(first);
                for (auto id = r->new_token_ids.rbegin(); id != r->new_token_ids.rend(); ++id)
                    at = s.insert(at, Row{-1, *id});
            } else if (const auto* d = std::get_if<DeleteAction>(&a.op)) {
                auto row = find(d->pos);
                if (row == s.end()) return false;
                s.erase(row);
            } else {
                s.push_back(Row{-1, std::get<AddAction>(a.op).token_id});
            }
        }
    }
    for (size_t l = 0; l < seq.size(); ++l) {
        seq[l].clear();
        for (const Row& r : rows[l]) seq[l].push_back(r.token);
    }
    return true;
}

// A random order of the whole list in which the adds keep their relative order.
std::vector<int> random_order(const ActionList& list, std::mt19937& rng) {
    std::vector<int> order(list.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<int> adds;
    for (size_t i = 0; i < list.size(); ++i)
        if (std::holds_alternative<AddAction>(list[i].op)) adds.push_back(int(i));
    size_t next = 0;
    for (int& i : order)
        if (std::holds_alternative<AddAction>(list[size_t(i)].op)) i = adds[next++];
    return order;
}

struct Scenario {
    SequenceShape shape;
    Layers seq;
    ActionList list;
};

Scenario random_sequence(std::mt19937& rng) {
    Scenario s;
    const int n_layers = 1 + int(rng() % 3);
    for (int l = 0; l < n_layers; ++l) s.shape.rows_per_layer.push_back(int(rng() % 13));
    s.shape.capacity =
        *std::max_element(s.shape.rows_per_layer.begin(), s.shape.rows_per_layer.end()) +
        int(rng() % 5);
    s.shape.vocab_size = 50;
    for (const int rows : s.shape.rows_per_layer) {
        s.seq.emplace_back();
        for (int r = 0; r < rows; ++r) s.seq.back().push_back(int32_t(rng() % 50));
    }
    return s;
}

std::vector<int> random_layers(std::mt19937& rng, int n_layers, bool allow_bad) {
    std::vector<int> layers;
    if (rng() % 2) return layers;
    for (int l = 0; l < n_layers + (allow_bad ? 1 : 0); ++l)
        if (rng() % 2) layers.push_back(l);
    return layers;
}

// Valid by construction except for capacity: spans chosen disjoint on common layers and
// inside every affected layer.
Scenario constructed_valid(std::mt19937& rng) {
    Scenario s = random_sequence(rng);
    const int n_layers = int(s.shape.rows_per_layer.size());
    struct Taken {
        int first, last;
        std::vector<int> layers;
    };
    std::vector<Taken> taken;
    for (int n = int(rng() % 7); n > 0; --n) {
        std::vector<int> layers = random_layers(rng, n_layers, false);
        const std::vector<int> affected = layers.empty() ? layers_of(Action{}, n_layers) : layers;
        const int kind = int(rng() % 3);
        if (kind == 2) {
            s.list.push_back(add(int32_t(rng() % 50), layers));
            continue;
        }
        int rows = 1 << 30;
        for (const int l : affected) rows = std::min(rows, s.shape.rows_per_layer[size_t(l)]);
        if (rows < 2) continue;
        const int first = int(rng() % unsigned(rows - 1));
        const int width = std::min(3, rows - 1 - first);  // replace: pos2 - pos1 - 1 < width
        const int last = kind == 0 ? first + 1 + int(rng() % unsigned(width)) : first;
        const bool clash = std::any_of(taken.begin(), taken.end(), [&](const Taken& t) {
            const bool common = std::any_of(affected.begin(), affected.end(), [&](int l) {
                return std::find(t.layers.begin(), t.layers.end(), l) != t.layers.end();
            });
            return common && first <= t.last && t.first <= last;
        });
        if (clash) continue;
        taken.push_back({first, last, affected});
        if (kind == 0) {
            std::vector<int32_t> ids(1 + rng() % 3);
            for (int32_t& id : ids) id = int32_t(rng() % 50);
            s.list.push_back(replace(first, last, ids, layers));
        } else {
            s.list.push_back(del(first, layers));
        }
    }
    return s;
}

// Anything at all, mostly invalid.
Scenario junk(std::mt19937& rng) {
    Scenario s = random_sequence(rng);
    const int n_layers = int(s.shape.rows_per_layer.size());
    auto pos = [&] { return int(rng() % 15) - 1; };
    auto token = [&] { return int32_t(rng() % 52) - 1; };
    for (int n = int(rng() % 5); n > 0; --n) {
        std::vector<int> layers = random_layers(rng, n_layers, true);
        switch (rng() % 3) {
            case 0: {
                std::vector<int32_t> ids(rng() % 3);
                for (int32_t& id : ids) id = token();
                s.list.push_back(replace(pos(), pos(), ids, layers));
                break;
            }
            case 1: s.list.push_back(del(pos(), layers)); break;
            default: s.list.push_back(add(token(), layers)); break;
        }
    }
    return s;
}

// A list that validation accepts: in application order it stays in range and under capacity,
// and it gives what one-by-one application with shift tracking gives, in any order.
void check_accepted(const Scenario& s, std::mt19937& rng) {
    Layers ordered = s.seq;
    QVERIFY(!apply_literally(ordered, order_for_application(s.list), s.shape.capacity));
    for (int k = 0; k < 4; ++k) {
        Layers reference = s.seq;
        QVERIFY(apply_tracking_shifts(reference, s.list, random_order(s.list, rng)));
        QCOMPARE(ordered, reference);
    }
}

// A fault as the pairwise reference below sees it: rule, action, and the earlier action an
// overlap names.
struct Fault {
    ValidationRule rule;
    int index;
    int other;
    bool operator==(const Fault&) const = default;
};

// Random lists whose only possible faults are listed layers (out of range, twice) and
// overlaps: positions inside every layer, tokens in the vocabulary, room to spare.
Scenario overlapping(std::mt19937& rng) {
    Scenario s;
    const int n_layers = 1 + int(rng() % 4);
    s.shape = shape_of(std::vector<int>(size_t(n_layers), 12), 1000, 50);
    for (int n = int(rng() % 30); n > 0; --n) {
        std::vector<int> layers;
        if (rng() % 3 != 0)
            for (int k = 1 + int(rng() % 3); k > 0; --k)
                layers.push_back(int(rng() % unsigned(n_layers + 1)));  // may not exist
        const int pos = int(rng() % 11);
        switch (rng() % 4) {
            case 0:
                s.list.push_back(replace(pos, pos + 1 + int(rng() % unsigned(11 - pos)),
                                         {int32_t(rng() % 50)}, layers));
                break;
            case 1: s.list.push_back(del(pos, layers)); break;
            case 2: s.list.push_back(insert(pos, {7}, layers)); break;
            default: s.list.push_back(add(3, layers)); break;
        }
    }
    return s;
}

// Every fault of such a list, by comparing every pair: per action its layer faults, then per
// action the first earlier one it overlaps on a layer both affect.
std::vector<Fault> pairwise_faults(const Scenario& s) {
    const int n_layers = int(s.shape.rows_per_layer.size());
    std::vector<Fault> faults;
    std::vector<std::vector<int>> existing(s.list.size());
    for (size_t i = 0; i < s.list.size(); ++i) {
        for (const int l : layers_of(s.list[i], n_layers)) {
            if (l >= n_layers)
                faults.push_back({ValidationRule::LayerOutOfRange, int(i), -1});
            else if (std::count(existing[i].begin(), existing[i].end(), l))
                faults.push_back({ValidationRule::DuplicateLayer, int(i), -1});
            else
                existing[i].push_back(l);
        }
    }
    auto span = [](const Action& a) -> std::pair<int, int> {
        if (const auto* r = std::get_if<ReplacePairAction>(&a.op))
            return {r->original_pos1, r->original_pos2};
        if (const auto* d = std::get_if<DeleteAction>(&a.op)) return {d->pos, d->pos};
        if (const auto* in = std::get_if<InsertAction>(&a.op)) return {in->pos, in->pos};
        return {1, 0};  // add: an empty span
    };
    for (size_t j = 0; j < s.list.size(); ++j) {
        for (size_t i = 0; i < j; ++i) {
            const auto [a0, a1] = span(s.list[i]);
            const auto [b0, b1] = span(s.list[j]);
            const bool rows_meet = a0 <= a1 && b0 <= b1 && a0 <= b1 && b0 <= a1;
            const bool layer_shared = std::any_of(
                existing[i].begin(), existing[i].end(),
                [&](int l) { return std::count(existing[j].begin(), existing[j].end(), l); });
            if (rows_meet && layer_shared) {
                faults.push_back({ValidationRule::Overlap, int(j), int(i)});
                break;
            }
        }
    }
    return faults;
}

// The faults a validation lists, and how many more it says there were.
std::pair<std::vector<Fault>, int64_t> listed_faults(const std::vector<ValidationError>& errors) {
    std::vector<Fault> listed;
    int64_t unlisted = 0;
    for (const ValidationError& e : errors) {
        if (e.rule == ValidationRule::MoreFaults)
            unlisted = e.unlisted;
        else
            listed.push_back({e.rule, e.action_index, e.other_index});
    }
    return {listed, unlisted};
}

}  // namespace

class TestActionValidation : public QObject {
    Q_OBJECT

private slots:
    void valid_list_has_no_errors() {
        QVERIFY(valid({}, shape()));
        QVERIFY(valid({replace(8, 9, {99}, {0, 1}), del(7), del(0, {0, 1}), add(0), add(5, {2})},
                      shape()));
    }

    void layers() {
        expect_one({del(1, {3})}, shape(), ValidationRule::LayerOutOfRange, 0, "layers[0]",
                   {"layers[0] = 3", "3 layers"});
        expect_one({add(1), del(1, {0, -1})}, shape(), ValidationRule::LayerOutOfRange, 1,
                   "layers[1]", {"layers[1] = -1"});
        expect_one({del(1, {1, 1})}, shape(), ValidationRule::DuplicateLayer, 0, "layers[1]",
                   {"layers[1] = 1"});
        QVERIFY(valid({del(1, {2})}, shape()));
    }

    void positions() {
        QVERIFY(valid({del(9, {0, 1})}, shape()));
        QVERIFY(valid({del(0)}, shape()));
        expect_one({del(10, {0})}, shape(), ValidationRule::PositionOutOfRange, 0, "pos",
                   {"pos = 10", "layer 0 with 10 rows"});
        // Layer 2 has 8 rows: position 8 exists on layers 0 and 1 only.
        expect_one({del(8)}, shape(), ValidationRule::PositionOutOfRange, 0, "pos",
                   {"pos = 8", "layer 2 with 8 rows"});
        QVERIFY(valid({del(8, {0, 1})}, shape()));
        QVERIFY(valid({del(7, {2})}, shape()));
        expect_one({del(-1)}, shape(), ValidationRule::PositionOutOfRange, 0, "pos", {"pos = -1"});
        expect_one({replace(6, 8, {1})}, shape(), ValidationRule::PositionOutOfRange, 0,
                   "original_pos2", {"original_pos2 = 8"});
        expect_one({replace(-2, 3, {1})}, shape(), ValidationRule::PositionOutOfRange, 0,
                   "original_pos1", {"original_pos1 = -2"});
        QVERIFY(valid({replace(6, 7, {1})}, shape()));
    }

    void pair_order_and_empty_replacement() {
        expect_one({replace(5, 5, {1})}, shape(), ValidationRule::PairOrder, 0, "original_pos2",
                   {"original_pos1 = 5", "original_pos2 = 5"});
        expect_one({replace(6, 5, {1})}, shape(), ValidationRule::PairOrder, 0, "original_pos2",
                   {"original_pos1 = 6", "original_pos2 = 5"});
        QVERIFY(valid({replace(5, 6, {1})}, shape()));
        QVERIFY(valid({replace(2, 7, {1})}, shape()));  // a pair need not be adjacent
        expect_one({replace(5, 6, {})}, shape(), ValidationRule::EmptyReplacement, 0,
                   "new_token_ids", {});
    }

    void token_ids() {
        QVERIFY(valid({add(99), add(0), replace(1, 2, {0, 99})}, shape()));
        expect_one({add(100)}, shape(), ValidationRule::TokenOutOfVocabulary, 0, "token_id",
                   {"token_id = 100", "100 tokens"});
        expect_one({add(-1)}, shape(), ValidationRule::TokenOutOfVocabulary, 0, "token_id",
                   {"token_id = -1"});
        expect_one({replace(1, 2, {5, 100})}, shape(), ValidationRule::TokenOutOfVocabulary, 0,
                   "new_token_ids[1]", {"new_token_ids[1] = 100"});
    }

    void overlaps() {
        expect_one({replace(5, 6, {1}), del(5)}, shape(), ValidationRule::Overlap, 1, "pos",
                   {"action 0", "replace_pair 5,6"});
        expect_one({del(6), replace(5, 6, {1})}, shape(), ValidationRule::Overlap, 1,
                   "original_pos1", {"action 0", "delete 6"});
        // Rows between a replace's positions move when it closes its gap.
        expect_one({replace(2, 6, {1}), del(4)}, shape(), ValidationRule::Overlap, 1, "pos",
                   {"replace_pair 2,6"});
        expect_one({del(3), del(3)}, shape(), ValidationRule::Overlap, 1, "pos",
                   {"duplicates action 0"});
        expect_one({replace(5, 6, {1}), replace(6, 7, {2})}, shape(), ValidationRule::Overlap, 1,
                   "original_pos1", {"replace_pair 5,6"});
        expect_one({replace(5, 6, {1}, {0, 1}), del(5, {1})}, shape(), ValidationRule::Overlap, 1,
                   "pos", {});
        // Adjacent but not sharing rows, or on no common layer: fine.
        QVERIFY(valid({replace(5, 6, {1}), del(4), del(7), replace(2, 3, {4})}, shape()));
        QVERIFY(valid({replace(5, 6, {1}, {0}), del(5, {1}), del(6, {2})}, shape()));
        QVERIFY(valid({add(1), add(1)}, shape()));  // appends never overlap
    }

    void capacity() {
        // Rows {10, 10, 8}, capacity 12.
        QVERIFY(valid({add(1), add(2)}, shape()));
        expect_one({add(1), add(2), add(3)}, shape(), ValidationRule::CapacityExceeded, 2,
                   "token_id",
                   {"layer 0 would hold 13 rows", "layer 1 would hold 13 rows", "capacity of 12"});
        QVERIFY(valid({add(1, {2}), add(1, {2}), add(1, {2}), add(1, {2})}, shape()));
        expect_one({add(1, {2}), add(1, {2}), add(1, {2}), add(1, {2}), add(1, {2})}, shape(),
                   ValidationRule::CapacityExceeded, 4, "token_id", {"layer 2 would hold 13"});
        QVERIFY(valid({replace(1, 2, {3, 4, 5, 6}), del(5)}, shape()));  // ends at 11
        expect_one({replace(1, 2, {3, 4, 5, 6, 7})}, shape(), ValidationRule::CapacityExceeded, 0,
                   "new_token_ids", {"would hold 13"});
        // A delete below a growing replace is applied after it: the peak counts, not the end.
        const SequenceShape full = shape_of({12}, 12, 100);
        QVERIFY(valid({replace(5, 6, {1, 2})}, full));
        expect_one({del(1), replace(5, 6, {1, 2, 3})}, full, ValidationRule::CapacityExceeded, 1,
                   "new_token_ids", {"would hold 13"});
        QVERIFY(valid({del(8), replace(5, 6, {1, 2, 3})}, full));  // delete above: applied first
        QVERIFY(valid({del(8), add(1)}, full));
    }

    void inserts() {
        // Rows {10, 10, 8}, capacity 12: before any row, or after the last one of every layer.
        QVERIFY(valid({insert(0, {1}), insert(8, {2})}, shape()));
        QVERIFY(valid({insert(10, {4}, {0, 1})}, shape()));
        expect_one({insert(9, {4})}, shape(), ValidationRule::PositionOutOfRange, 0, "pos",
                   {"pos = 9", "layer 2 with 8 rows"});
        expect_one({insert(3, {})}, shape(), ValidationRule::EmptyReplacement, 0, "token_ids", {});
        expect_one({insert(3, {7, 100})}, shape(), ValidationRule::TokenOutOfVocabulary, 0,
                   "token_ids[1]", {"token_ids[1] = 100"});
        expect_one({del(3), insert(3, {1})}, shape(), ValidationRule::Overlap, 1, "pos",
                   {"delete 3"});
        expect_one({insert(3, {1, 2, 3})}, shape(), ValidationRule::CapacityExceeded, 0,
                   "token_ids", {"layer 0 would hold 13"});
        // Descending order: the insert above the delete goes first.
        QCOMPARE(application_order({del(2), insert(6, {1})}), (std::vector<int>{1, 0}));
    }

    void nothing_is_inserted_before_bos() {
        // Layer 1 alone starts with BOS: an insert at row 0 is refused where it reaches layer 1
        // (naming it), allowed elsewhere, and row 1 stays open everywhere.
        SequenceShape s = shape();
        s.starts_with_bos = {0, 1, 0};
        expect_one({insert(0, {1})}, s, ValidationRule::InsertBeforeBos, 0, "pos",
                   {"pos = 0", "layer 1", "BOS"});
        expect_one({insert(0, {1}, {1, 2})}, s, ValidationRule::InsertBeforeBos, 0, "pos",
                   {"layer 1"});
        QVERIFY(valid({insert(0, {1}, {0, 2})}, s));
        QVERIFY(valid({insert(1, {1})}, s));
        QVERIFY(valid({del(0, {1})}, s));  // deleting BOS is the user's call, not an insert
    }

    void reports_every_fault() {
        const std::vector<ValidationError> errors =
            validate_action_list({add(100), del(20), replace(3, 3, {})}, shape());
        std::vector<ValidationRule> rules;
        for (const ValidationError& e : errors) rules.push_back(e.rule);
        QCOMPARE(rules,
                 (std::vector<ValidationRule>{
                     ValidationRule::TokenOutOfVocabulary, ValidationRule::PositionOutOfRange,
                     ValidationRule::PairOrder, ValidationRule::EmptyReplacement}));
    }

    void faults_match_a_pairwise_reference_on_random_lists() {
        int capped = 0, with_overlaps = 0;
        for (uint32_t seed = 0; seed < 3000; ++seed) {
            std::mt19937 rng(seed);
            const Scenario s = overlapping(rng);
            const std::vector<Fault> expected = pairwise_faults(s);
            const auto [listed, unlisted] = listed_faults(validate_action_list(s.list, s.shape));
            // The first kMaxListedFaults faults in the reference's order, then a count of the
            // rest.
            const size_t shown = std::min(expected.size(), kMaxListedFaults);
            QCOMPARE(listed, std::vector<Fault>(expected.begin(), expected.begin() + long(shown)));
            QCOMPARE(unlisted, int64_t(expected.size() - shown));
            capped += unlisted > 0;
            with_overlaps += std::any_of(expected.begin(), expected.end(), [](const Fault& f) {
                return f.rule == ValidationRule::Overlap;
            });
        }
        QVERIFY(capped > 50);
        QVERIFY(with_overlaps > 1500);
    }

    void a_long_list_of_overlaps_gives_a_bounded_message() {
        // 20,000 inserts and deletes on 1,000 positions, half on every layer and half on one;
        // action j overlaps an earlier one exactly when an earlier action on one of its layers
        // has its position (single-row spans). The reference keeps, per layer, the first index
        // seen at each position.
        const int n_layers = 4, n = 20000;
        const SequenceShape big = shape_of(std::vector<int>(n_layers, 1000), 1000000, 100);
        ActionList list;
        std::vector<std::map<int, int>> first_at(n_layers);
        std::vector<Fault> expected;
        for (int j = 0; j < n; ++j) {
            const int pos = int((int64_t(j) * 7919) % 997);
            std::vector<int> layers;
            if (j % 2) layers = {j % n_layers};
            list.push_back(j % 3 ? insert(pos, {1}, layers) : del(pos, layers));
            int first = n;
            for (const int l : layers_of(list.back(), n_layers))
                if (auto it = first_at[size_t(l)].find(pos); it != first_at[size_t(l)].end())
                    first = std::min(first, it->second);
            if (first < n) expected.push_back({ValidationRule::Overlap, j, first});
            for (const int l : layers_of(list.back(), n_layers))
                first_at[size_t(l)].emplace(pos, j);
        }
        QVERIFY(expected.size() > 15000);

        const std::vector<ValidationError> errors = validate_action_list(list, big);
        const auto [listed, unlisted] = listed_faults(errors);
        QCOMPARE(listed, std::vector<Fault>(expected.begin(), expected.begin() + kMaxListedFaults));
        QCOMPARE(unlisted, int64_t(expected.size() - kMaxListedFaults));
        QCOMPARE(errors.size(), kMaxListedFaults + 1);
        size_t message_bytes = 0;
        for (const ValidationError& e : errors) message_bytes += e.message.size();
        QVERIFY2(message_bytes < 4096, std::to_string(message_bytes).c_str());
        QVERIFY2(errors.back().message.find(std::to_string(expected.size() - kMaxListedFaults)) !=
                     std::string::npos,
                 errors.back().message.c_str());
    }

    void an_overlong_list_is_refused_by_its_length() {
        const ActionList list(kMaxActionsPerList + 1, add(1));
        const std::vector<ValidationError> errors = validate_action_list(list, shape());
        QCOMPARE(errors.size(), size_t(1));
        QVERIFY(errors[0].rule == ValidationRule::TooManyActions);
        QVERIFY2(
            errors[0].message.find(std::to_string(kMaxActionsPerList + 1)) != std::string::npos,
            errors[0].message.c_str());
        // At the limit the list is examined: here it overfills the layers.
        const std::vector<ValidationError> at_limit =
            validate_action_list(ActionList(kMaxActionsPerList, add(1)), shape());
        QVERIFY(at_limit.front().rule == ValidationRule::CapacityExceeded);
    }

    void application_order_is_descending_then_appends() {
        const ActionList list = {add(1), del(2),      replace(5, 6, {9}),
                                 add(2), del(8, {0}), del(8, {1})};
        QCOMPARE(application_order(list), (std::vector<int>{4, 5, 2, 1, 0, 3}));
        const ActionList ordered = order_for_application(list);
        QCOMPARE(ordered.size(), list.size());
        QCOMPARE(ordered[0], list[4]);
        QCOMPARE(ordered[5], list[3]);
    }

    void order_matches_one_by_one_application_on_random_lists() {
        std::mt19937 rng(2024);
        int accepted = 0;
        int over_capacity = 0;
        for (int trial = 0; trial < 5000; ++trial) {
            const Scenario s = constructed_valid(rng);
            const std::vector<ValidationError> errors = validate_action_list(s.list, s.shape);
            // Only capacity can fail a list built valid, and exactly when the literal
            // application in that order overflows.
            for (const ValidationError& e : errors)
                QVERIFY2(e.rule == ValidationRule::CapacityExceeded, e.message.c_str());
            Layers seq = s.seq;
            const bool overflow =
                apply_literally(seq, order_for_application(s.list), s.shape.capacity);
            QCOMPARE(!errors.empty(), overflow);
            if (overflow) {
                ++over_capacity;
                continue;
            }
            check_accepted(s, rng);
            ++accepted;
        }
        QVERIFY(accepted > 3000);
        QVERIFY(over_capacity > 50);
    }

    void accepted_junk_is_applicable() {
        std::mt19937 rng(99);
        int accepted = 0;
        for (int trial = 0; trial < 20000; ++trial) {
            const Scenario s = junk(rng);
            if (!valid(s.list, s.shape)) continue;
            check_accepted(s, rng);
            ++accepted;
        }
        QVERIFY(accepted > 1000);
    }
};

QTEST_APPLESS_MAIN(TestActionValidation)
#include "test_action_validation.moc"
