// Steps 2-3: brightness maths against hand-computed values, conflict resolution between
// injected and proposed actions, and the proposers (pair-merge on the tiny model's tokenizer,
// against a reference that looks the joined piece up in the vocabulary).
#include <QtTest>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/model/model_loader.h"
#include "core/policy/brightness.h"
#include "core/policy/conflict_resolution.h"
#include "core/policy/manual_proposer.h"
#include "core/policy/pair_merge_proposer.h"
#include "core/policy/policy_error.h"
#include "core/policy/proposer.h"

using namespace kvw;

namespace {

Action replace(int p1, int p2, std::vector<int32_t> ids, std::vector<int> layers = {}) {
    return Action{ReplacePairAction{p1, p2, std::move(ids)}, std::move(layers)};
}
Action del(int pos, std::vector<int> layers = {}) {
    return Action{DeleteAction{pos}, std::move(layers)};
}
Action add(int32_t id) { return Action{AddAction{id}, {}}; }

int32_t piece_id(const Tokenizer& t, const std::string& piece) {
    const auto& pieces = t.vocabulary().pieces;
    const auto it = std::find(pieces.begin(), pieces.end(), piece);
    if (it == pieces.end()) qFatal("no piece %s", piece.c_str());
    return int32_t(it - pieces.begin());
}

// Reference for pair-merge: the pair of normal pieces, lowest summed brightness first (then
// lowest position), whose concatenation is itself a normal piece of the vocabulary.
std::optional<Action> reference_merge(const Tokenizer& t, const std::vector<int32_t>& rows,
                                      const std::vector<std::vector<float>>& brightness,
                                      const std::vector<int>& layers) {
    const Vocabulary& v = t.vocabulary();
    std::optional<std::pair<double, int>> best;
    int32_t best_id = -1;
    for (size_t r = 0; r + 1 < rows.size(); ++r) {
        if (v.types[size_t(rows[r])] != TokenType::Normal ||
            v.types[size_t(rows[r + 1])] != TokenType::Normal)
            continue;
        const std::string joined = v.pieces[size_t(rows[r])] + v.pieces[size_t(rows[r + 1])];
        const auto it = std::find(v.pieces.begin(), v.pieces.end(), joined);
        if (it == v.pieces.end() || v.types[size_t(it - v.pieces.begin())] != TokenType::Normal)
            continue;
        double sum = 0.0;
        for (const int l : layers)
            sum += double(brightness[size_t(l)][r]) + double(brightness[size_t(l)][r + 1]);
        const std::pair<double, int> key{sum, int(r)};
        if (!best || key < *best) {
            best = key;
            best_id = int32_t(it - v.pieces.begin());
        }
    }
    if (!best) return std::nullopt;
    return replace(best->second, best->second + 1, {best_id});
}

}  // namespace

class TestPolicy : public QObject {
    Q_OBJECT

    std::shared_ptr<const Model> model_;

private slots:
    void initTestCase() { model_ = load_model("synthetic:tiny"); }

    void brightness_by_hand() {
        const BrightnessParams p{0.5f, 10.0f, 255.0f, 100.0f};
        const auto tick = [&](const std::vector<float>& b, const std::vector<float>& mass) {
            std::vector<float> out;
            for (size_t r = 0; r < b.size(); ++r) out.push_back(next_brightness(b[r], mass[r], p));
            return out;
        };
        // b' = min(100, 0.5 b + 10 mass)
        const std::vector<float> b = {100.0f, 20.0f, 0.0f, 90.0f, 30.0f};
        const std::vector<float> mass = {0.0f, 0.25f, 1.0f, 6.0f, 0.5f};
        QCOMPARE(tick(b, mass), (std::vector<float>{50.0f, 12.5f, 10.0f, 100.0f, 20.0f}));
        // Two ticks without attention: a quarter left.
        const std::vector<float> none(5, 0.0f);
        QCOMPARE(tick(tick(b, none), none), (std::vector<float>{25.0f, 5.0f, 0.0f, 22.5f, 7.5f}));
        // Defaults: 0.9 decay, 25.5 per unit of share: a uniformly attended row stays at 255.
        const BrightnessParams d;
        QVERIFY(std::fabs(next_brightness(200.0f, 0.5f, d) - (200.0 * 0.9 + 0.5 * 25.5)) < 1e-4);
        QVERIFY(std::fabs(next_brightness(255.0f, 1.0f, d) - 255.0) < 1e-4);
        QCOMPARE(d.initial, 255.0f);
    }

    void attention_share_is_relative_to_uniform() {
        // Two heads, one query, four rows: total mass 2, so a uniform row would get 0.5.
        QCOMPARE(attention_share(std::vector<float>{1.0f, 0.5f, 0.25f, 0.25f}),
                 (std::vector<float>{2.0f, 1.0f, 0.5f, 0.5f}));
        QCOMPARE(attention_share(std::vector<float>{0.0f, 0.0f}), (std::vector<float>{0.0f, 0.0f}));
    }

    void conflict_resolution_keeps_injected() {
        const ActionList injected = {replace(5, 6, {1}), del(9), replace(2, 3, {4}, {0})};
        const ActionList proposed = {
            del(5),                   // 0: on a replaced row -> dropped (kept 0)
            del(6),                   // 1: dropped (kept 0)
            replace(9, 10, {7}),      // 2: touches the injected delete -> dropped (kept 1)
            del(7),                   // 3: kept
            del(7),                   // 4: duplicates proposed 3 -> dropped (kept 3)
            add(3),                   // 5: kept
            replace(5, 6, {8}, {1}),  // 6: same rows, common layer 1 -> dropped (kept 0)
            del(2, {1}),              // 7: no common layer with the layer-0 replace -> kept
            del(3, {0, 1}),           // 8: shares layer 0 -> dropped (kept 2)
        };
        const MergedActions m = merge_actions(injected, proposed);
        const ActionList expected = {injected[0], injected[1], injected[2],
                                     proposed[3], proposed[5], proposed[7]};
        QCOMPARE(m.actions, expected);
        std::vector<std::pair<int, int>> dropped;
        for (const DroppedAction& d : m.dropped) {
            QCOMPARE(d.action, proposed[size_t(d.proposed_index)]);
            dropped.emplace_back(d.proposed_index, d.kept_index);
        }
        QCOMPARE(dropped, (std::vector<std::pair<int, int>>{
                              {0, 0}, {1, 0}, {2, 1}, {4, 3}, {6, 0}, {8, 2}}));
        // Clashing injected actions are the user's: both stay, for validation to report.
        QCOMPARE(merge_actions({del(4), replace(4, 5, {1})}, {}).actions.size(), size_t(2));
    }

    void proposer_factory() {
        const auto manual = make_proposer("manual");
        QCOMPARE(manual->name(), std::string_view("manual"));
        const auto merge = make_proposer("pair-merge");
        QCOMPARE(merge->name(), std::string_view("pair-merge"));
        QVERIFY(dynamic_cast<PairMergeProposer*>(merge.get()));
        // Every row of the table builds a proposer answering to its name.
        for (const std::string& name : proposer_names())
            QCOMPARE(make_proposer(name)->name(), std::string_view(name));
        QVERIFY(proposer_names().size() >= 5);
        const std::vector<std::string> names = proposer_names();
        QVERIFY(std::find(names.begin(), names.end(), "focus") != names.end());
        try {
            make_proposer("h3o");
            QFAIL("no error");
        } catch (const UnknownProposer& e) {
            QCOMPARE(e.name(), std::string("h3o"));
            QVERIFY2(std::string(e.what()).find("manual, pair-merge, focus, streaming-llm") !=
                         std::string::npos,
                     e.what());
        }
        try {
            make_proposer("h2o", PolicyOptions{PolicyBudget{4, 8, 0}, 0, {}});
            QFAIL("a window of 0 was taken");
        } catch (const PolicyInputError& e) {
            QVERIFY2(std::string(e.what()).find("window") != std::string::npos, e.what());
        }
    }

    void manual_proposes_nothing() {
        const Tokenizer& t = model_->tokenizer;
        const std::vector<std::vector<int32_t>> rows = {
            {piece_id(t, "\xE2\x96\x81"), piece_id(t, "water")}};
        const std::vector<std::vector<float>> bright = {{0.0f, 0.0f}};
        ManualProposer manual;
        QVERIFY(manual.propose({rows, bright, t}).empty());
    }

    void pair_merge_picks_darkest_mergeable_pair() {
        const Tokenizer& t = model_->tokenizer;
        const std::string sp = "\xE2\x96\x81";  // "▁"
        // BOS ▁the ▁ water . , ▁wat e th e ▁cache
        const std::vector<int32_t> row = {t.bos_id(),
                                          piece_id(t, sp + "the"),
                                          piece_id(t, sp),
                                          piece_id(t, "water"),
                                          piece_id(t, "."),
                                          piece_id(t, ","),
                                          piece_id(t, sp + "wat"),
                                          piece_id(t, "e"),
                                          piece_id(t, "th"),
                                          piece_id(t, "e"),
                                          piece_id(t, sp + "cache")};
        const std::vector<std::vector<int32_t>> rows(3, row);
        std::mt19937 rng(5);
        std::uniform_real_distribution<float> level(0.0f, 255.0f);
        PairMergeProposer proposer;
        int per_pair[16] = {};
        for (int trial = 0; trial < 300; ++trial) {
            std::vector<std::vector<float>> bright(3, std::vector<float>(row.size()));
            for (auto& layer : bright)
                for (float& b : layer) b = level(rng);
            const ActionList got = proposer.propose({rows, bright, t});
            const std::optional<Action> want = reference_merge(t, row, bright, {0, 1, 2});
            QVERIFY(want.has_value());
            QCOMPARE(got, ActionList{*want});
            const auto& r = std::get<ReplacePairAction>(got[0].op);
            ++per_pair[r.original_pos1];
            // The new token spells exactly the two it replaces.
            const std::vector<int32_t> pair = {row[size_t(r.original_pos1)],
                                               row[size_t(r.original_pos2)]};
            QCOMPARE(t.decode(r.new_token_ids), t.decode(pair));
            QCOMPARE(
                t.vocabulary().pieces[size_t(r.new_token_ids[0])],
                t.vocabulary().pieces[size_t(pair[0])] + t.vocabulary().pieces[size_t(pair[1])]);
        }
        // Each mergeable pair (▁+water, ▁wat+e, th+e) was the darkest sometimes.
        QVERIFY(per_pair[2] > 0 && per_pair[6] > 0 && per_pair[8] > 0);
        QCOMPARE(per_pair[0], 0);  // BOS is never folded into its neighbour

        // The BOS pair and an unmergeable pair darkest: still the darkest mergeable one.
        std::vector<std::vector<float>> bright(3, std::vector<float>(row.size(), 200.0f));
        for (auto& layer : bright) {
            layer[0] = layer[1] = layer[4] = layer[5] = 0.0f;
            layer[6] = layer[7] = 50.0f;
        }
        QCOMPARE(proposer.propose({rows, bright, t}),
                 (ActionList{replace(6, 7, {piece_id(t, sp + "wate")})}));
        // Ties: the lower position.
        std::vector<std::vector<float>> flat(3, std::vector<float>(row.size(), 1.0f));
        QCOMPARE(proposer.propose({rows, flat, t}),
                 (ActionList{replace(2, 3, {piece_id(t, sp + "water")})}));
    }

    void pair_merge_with_layers_that_differ() {
        const Tokenizer& t = model_->tokenizer;
        const std::string sp = "\xE2\x96\x81";
        const std::vector<int32_t> row = {t.bos_id(), piece_id(t, sp), piece_id(t, "water"),
                                          piece_id(t, sp + "wat"), piece_id(t, "e")};
        std::vector<int32_t> other = row;
        other[3] = piece_id(t, sp + "cache");
        const std::vector<std::vector<int32_t>> rows = {row, other, row};
        // Counting layer 1 would make pair 1 the darker; layers 0 and 2 alone make it pair 3.
        const std::vector<std::vector<float>> bright = {
            {9, 5, 5, 2, 2}, {9, 0, 0, 255, 255}, {9, 5, 5, 2, 2}};
        PairMergeProposer proposer;
        QCOMPARE(proposer.propose({rows, bright, t}),
                 (ActionList{replace(3, 4, {piece_id(t, sp + "wate")}, {0, 2})}));
        // Nothing merges: nothing proposed.
        const std::vector<std::vector<int32_t>> plain = {
            {t.bos_id(), piece_id(t, "."), piece_id(t, ",")}};
        QVERIFY(proposer.propose({plain, {{1, 1, 1}}, t}).empty());
        QVERIFY(proposer.propose({{}, {}, t}).empty());
        QVERIFY_THROWS_EXCEPTION(PolicyInputError, proposer.propose({rows, {{1}}, t}));
    }
};

QTEST_APPLESS_MAIN(TestPolicy)
#include "test_policy.moc"
