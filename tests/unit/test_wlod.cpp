// The wLOD tree (ARCHITECTURE §14): gist maths against float64 references, collapse / expand
// round trips bit for bit, and random collapse / expand / token-edit streams against a plain
// reference tree written here (same rows in order, same dirty sets), with regeneration equal to
// a full recompute and a ledger that loses nothing after every edit.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "core/gist/gist_net.h"
#include "core/math/mean_pool.h"
#include "core/state/action_json.h"
#include "core/state/state_error.h"
#include "core/state/tick.h"
#include "core/wlod/wlod_context.h"
#include "state_fixture.h"
#include "tests/run_length.h"

using namespace kvw;
using namespace kvw::test;

namespace {

constexpr int kK = 4;

StateManager make_wlod_state(int capacity, int k = kK) {
    StateOptions o{capacity, RopePolicy::FinalIndex, true, fixture_layout()};
    o.wlod_k = k;
    return StateManager(tiny().engine, o);
}

// ---- the plain reference tree ------------------------------------------------------------------

struct RefRow {
    int level = 0;                // 0: a token
    std::vector<int64_t> leaves;  // the token records it stands for
};

struct RefLayer {
    std::vector<RefRow> rows;

    int64_t leaf_offset(int r) const {
        int64_t n = 0;
        for (int i = 0; i < r; ++i) n += int64_t(rows[size_t(i)].leaves.size());
        return n;
    }
    int64_t n_leaves() const { return leaf_offset(int(rows.size())); }
    std::vector<int64_t> leaves() const {
        std::vector<int64_t> out;
        for (const RefRow& r : rows) out.insert(out.end(), r.leaves.begin(), r.leaves.end());
        return out;
    }
    bool gist_at_or_after(int r) const {
        for (size_t i = size_t(r); i < rows.size(); ++i)
            if (rows[i].level > 0) return true;
        return false;
    }
    // The rows the block of `level` at r spans, or -1 when it is no whole aligned block.
    int block_rows(int r, int level) const {
        const int64_t span = level == 2 ? kK * kK : kK;
        if (r < 0 || r >= int(rows.size()) || leaf_offset(r) % span != 0) return -1;
        int64_t covered = 0;
        int i = r;
        for (; i < int(rows.size()) && covered < span; ++i) {
            if (rows[size_t(i)].level >= level) return -1;
            covered += int64_t(rows[size_t(i)].leaves.size());
        }
        return covered == span ? i - r : -1;
    }
    void collapse(int r, int level) {
        const int n = block_rows(r, level);
        RefRow g{level, {}};
        for (int i = r; i < r + n; ++i)
            g.leaves.insert(g.leaves.end(), rows[size_t(i)].leaves.begin(),
                            rows[size_t(i)].leaves.end());
        rows.erase(rows.begin() + r, rows.begin() + r + n);
        rows.insert(rows.begin() + r, g);
    }
    void expand(int r) {
        const RefRow g = rows[size_t(r)];
        const size_t child = g.leaves.size() / kK;
        std::vector<RefRow> children;
        for (size_t c = 0; c < kK; ++c)
            children.push_back(RefRow{
                g.level - 1, std::vector<int64_t>(g.leaves.begin() + ptrdiff_t(c * child),
                                                  g.leaves.begin() + ptrdiff_t((c + 1) * child))});
        rows.erase(rows.begin() + r);
        rows.insert(rows.begin() + r, children.begin(), children.end());
    }
};

// The nodes a change of leaves [a, b) makes hierarchically dirty, in a timeline of n leaves.
std::set<NodeKey> hier_of(int64_t a, int64_t b, int64_t n) {
    std::set<NodeKey> out;
    for (int64_t i = a; i < std::min(b, n); ++i) {
        out.insert({0, i / kK});
        out.insert({1, i / kK});
        out.insert({2, i / (kK * kK)});
    }
    return out;
}

struct Expected {
    std::set<NodeKey> hier;
    int64_t temporal = -1;
};

// Working-context rows of the state as (level, leaves), to compare with the reference.
std::vector<RefRow> state_rows(const StateManager& s, int layer) {
    std::vector<RefRow> out;
    for (int64_t id : s.layer_map(layer).pos2ledger) {
        if (const GistRecord* g = s.gist(id))
            out.push_back(RefRow{g->level, g->leaves});
        else
            out.push_back(RefRow{0, {id}});
    }
    return out;
}

bool same_rows(const std::vector<RefRow>& a, const std::vector<RefRow>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].level != b[i].level || a[i].leaves != b[i].leaves) return false;
    return true;
}

std::vector<float> rows_kv(const StateManager& s, int layer, int first, int n) {
    const int dim = s.cache().kv_dim();
    std::vector<float> out, k(static_cast<size_t>(dim)), v(static_cast<size_t>(dim));
    for (int r = first; r < first + n; ++r) {
        s.cache().read_k(layer, r, k.data());
        s.cache().read_v(layer, r, v.data());
        out.insert(out.end(), k.begin(), k.end());
        out.insert(out.end(), v.begin(), v.end());
    }
    return out;
}

}  // namespace

class TestWlod : public QObject {
    Q_OBJECT
private slots:
    void initTestCase_data() { add_layout_rows(); }
    void init() { use_layout_row(); }

    // Mean pooling against a float64 mean, and the central leaf as the lower median.
    void gist_maths() {
        std::mt19937 rng(5);
        std::normal_distribution<float> g(0.0f, 3.0f);
        for (int n : {1, 2, 3, 4, 7, 8, 16}) {
            std::vector<std::vector<float>> rows(size_t(n), std::vector<float>(37));
            for (auto& r : rows)
                for (float& x : r) x = g(rng);
            std::vector<std::span<const float>> spans(rows.begin(), rows.end());
            const std::vector<float> got = MeanPoolGistNet().gist(spans, 1);
            for (size_t i = 0; i < 37; ++i) {
                double sum = 0.0;
                for (const auto& r : rows) sum += double(r[i]);
                const double want = sum / double(n);
                QVERIFY2(std::fabs(double(got[i]) - want) <= 1e-6 * std::max(1.0, std::fabs(want)),
                         qPrintable(QString("n=%1 i=%2").arg(n).arg(i)));
            }
        }
        for (int span = 1; span <= 64; ++span) {
            // Positions first..last: the centre is floor((first + last) / 2) in exact arithmetic.
            const double first = 100.0, last = first + span - 1;
            QCOMPARE(100 + central_leaf(span), int(std::floor((first + last) / 2.0)));
        }
    }

    // The gist record of a collapsed block: float64 mean of its tokens' embeddings, at the phase
    // of its central token; the row's K/V equal a fresh pass with that embedding as an item.
    void collapse_makes_gist_row() {
        std::mt19937 rng(7);
        StateManager s = make_wlod_state(64);
        s.append(random_tokens(rng, 14), EntryKind::Prompt, 0);
        const std::vector<int64_t> block(s.layer_map(0).pos2ledger.begin() + 4,
                                         s.layer_map(0).pos2ledger.begin() + 8);
        s.collapse({}, 4, 1, 1);
        QCOMPARE(s.rows(0), 11);
        const int64_t id = s.layer_map(0).pos2ledger[4];
        QCOMPARE(s.ledger().at(id).kind, EntryKind::Gist);
        const GistRecord* g = s.gist(id);
        QVERIFY(g);
        QCOMPARE(g->leaves, block);
        QCOMPARE(g->phase, 5);  // leaves at phases 4..7: the lower middle one
        QCOMPARE(s.layer_map(0).rope_pos[4], 5);
        const int n_embd = tiny().model->config.n_embd;
        for (int i = 0; i < n_embd; ++i) {
            double sum = 0.0;
            for (int64_t leaf : block)
                sum +=
                    double(tiny().engine.token_embedding(s.ledger().at(leaf).token_id)[size_t(i)]);
            QVERIFY(std::fabs(double(g->embedding[size_t(i)]) - sum / 4.0) <= 1e-6);
        }
        for (int64_t leaf : block)
            for (int l = 0; l < s.n_layers(); ++l)
                QCOMPARE(s.ledger().at(leaf).status[size_t(l)], RowStatus::Collapsed);
        // Rows 0..4 are exact (the gist saw the same context); later rows are stale until
        // recomputed, then the whole cache equals a fresh pass.
        const DriftReport before = s.measure_drift(1e-6f);
        for (const LayerDrift& d : before.layers)
            for (int r = 0; r <= 4; ++r) QVERIFY(!d.stale(r));
        s.recompute_suffix(5);
        QCOMPARE(max_drift(s.measure_drift()), 0.0f);
        QVERIFY(all_passed(s.check_invariants()));
    }

    // A state made without a K (wLOD never on) has none: the primitive refuses a collapse
    // before anything changes instead of cutting blocks of a hidden 32 (issue 26 item 8).
    void collapse_needs_a_chosen_k() {
        std::mt19937 rng(7);
        StateManager s = make_wlod_state(64, 0);
        s.append(random_tokens(rng, 40), EntryKind::Prompt, 0);
        const uint64_t hash = s.state_hash();
        QVERIFY_THROWS_EXCEPTION(StateError, s.collapse({}, 4, 1, 1));
        QCOMPARE(s.state_hash(), hash);
        QCOMPARE(s.wlod_k(), 0);
    }

    void expand_after_collapse_is_bit_exact() {
        std::mt19937 rng(9);
        StateManager s = make_wlod_state(64);
        s.append(random_tokens(rng, 21), EntryKind::Prompt, 0);
        const std::vector<int64_t> ids = s.layer_map(0).pos2ledger;
        std::vector<std::vector<float>> kv;
        for (int l = 0; l < s.n_layers(); ++l) kv.push_back(rows_kv(s, l, 0, 21));
        const uint64_t hash_before = s.state_hash();

        s.collapse({}, 0, 2, 1);  // 16 tokens -> 4 level-1 gists -> one level-2 gist
        QCOMPARE(s.rows(0), 6);
        QCOMPARE(s.gist(s.layer_map(0).pos2ledger[0])->level, 2);
        QCOMPARE(s.layer_map(0).rope_pos[0], 7);  // phases 0..15: lower middle 7
        s.recompute_suffix(1);
        s.expand({}, 0, 2);
        QCOMPARE(s.rows(0), 9);
        for (int r = 0; r < 4; ++r)
            QCOMPARE(s.gist(s.layer_map(0).pos2ledger[size_t(r)])->level, 1);
        // In time order, so that each block's context is the original tokens again.
        for (int r = 0; r < 16; r += kK) s.expand({}, r, 3);
        s.recompute_suffix(16);
        QCOMPARE(s.layer_map(0).pos2ledger, ids);
        for (int l = 0; l < s.n_layers(); ++l) {
            const std::vector<float> now = rows_kv(s, l, 0, 21);
            QVERIFY(std::memcmp(now.data(), kv[size_t(l)].data(), now.size() * sizeof(float)) == 0);
        }
        // The ledger kept the five gist records (and only they differ from before).
        QCOMPARE(s.ledger().size(), int64_t(21 + 5));
        QVERIFY(s.state_hash() != hash_before);
        for (int64_t id : ids) QVERIFY(s.ledger().at(id).live_anywhere());
    }

    void refuses_what_is_no_block() {
        std::mt19937 rng(3);
        StateManager s = make_wlod_state(64);
        s.append(random_tokens(rng, 10), EntryKind::Prompt, 0);
        const uint64_t h = s.state_hash();
        auto refused = [&](auto&& f) {
            try {
                f();
            } catch (const StateError& e) {
                return e.kind() == StateErrorKind::WlodShape && s.state_hash() == h;
            }
            return false;
        };
        QVERIFY(refused([&] { s.collapse({}, 2, 1, 1); }));  // not aligned
        QVERIFY(refused([&] { s.collapse({}, 8, 1, 1); }));  // 2 of 4 tokens
        QVERIFY(refused([&] { s.collapse({}, 0, 2, 1); }));  // 10 of 16 tokens
        QVERIFY(refused([&] { s.collapse({}, 0, 3, 1); }));  // no level 3
        QVERIFY(refused([&] { s.expand({}, 1, 1); }));       // a token
        QVERIFY(refused([&] { s.expand({}, 10, 1); }));      // no such row
        s.collapse({}, 0, 1, 1);
        QVERIFY_THROWS_EXCEPTION(StateError, s.collapse({}, 0, 1, 2));  // already a gist
    }

    // Issue 25 item 5: BOS in row 0 and a ring's sink rows are never folded into a gist, as
    // nothing is inserted before BOS: the primitive refuses with PinnedRow naming the row and
    // changes nothing, pre-flight refuses the action, the blocks after them still collapse.
    void bos_and_ring_sinks_are_never_collapsed() {
        std::mt19937 rng(6);
        const int32_t bos = tiny().model->tokenizer.bos_id();
        QVERIFY(bos >= 0);
        StateManager s = make_wlod_state(64);
        std::vector<int32_t> prompt{bos};
        const std::vector<int32_t> rest = random_tokens(rng, 19);
        prompt.insert(prompt.end(), rest.begin(), rest.end());
        s.append(prompt, EntryKind::Prompt, 0);
        QVERIFY(s.starts_with_bos(0));
        QCOMPARE(s.pinned_rows(0), 1);
        const uint64_t h = s.state_hash();
        for (int level : {1, 2}) {
            try {
                s.collapse({}, 0, level, 1);
                QFAIL(qPrintable(QString("a level-%1 collapse took BOS in").arg(level)));
            } catch (const StateError& e) {
                QCOMPARE(e.kind(), StateErrorKind::PinnedRow);
                const std::string what = e.what();
                QVERIFY2(what.find("row 0") != std::string::npos &&
                             what.find("BOS") != std::string::npos,
                         e.what());
            }
            QCOMPARE(s.state_hash(), h);
            QCOMPARE(s.rows(0), 20);
        }
        auto rules = [&](const ActionList& l) {
            std::vector<ValidationRule> out;
            for (const ValidationError& e : validate_action_list(l, sequence_shape(s)))
                out.push_back(e.rule);
            return out;
        };
        using R = std::vector<ValidationRule>;
        QCOMPARE(rules({Action{CollapseAction{0, 1}, {}}}), R{ValidationRule::PinnedRow});
        QCOMPARE(rules({Action{CollapseAction{0, 2}, {2}}}), R{ValidationRule::PinnedRow});
        QVERIFY(rules({Action{CollapseAction{4, 1}, {}}}).empty());
        s.collapse({}, 4, 1, 1);
        QVERIFY(s.gist(s.layer_map(0).pos2ledger[4]));

        // A ring's sinks (here without BOS): every row before the first ring row is pinned.
        if (fixture_layout() != CacheLayout::Contiguous) return;
        StateOptions o{64, RopePolicy::FinalIndex, true, CacheLayout::Ring};
        o.wlod_k = kK;
        o.ring.sinks = 6;
        StateManager r(tiny().engine, o);
        r.append(random_tokens(rng, 20), EntryKind::Prompt, 0);
        QVERIFY(!r.starts_with_bos(0));
        QCOMPARE(r.pinned_rows(0), 6);
        const uint64_t rh = r.state_hash();
        try {
            r.collapse({}, 4, 1, 1);  // rows 4..7 hold the sinks 4 and 5
            QFAIL("a collapse took ring sink rows in");
        } catch (const StateError& e) {
            QCOMPARE(e.kind(), StateErrorKind::PinnedRow);
            QVERIFY2(std::string(e.what()).find("row 4 of layer") != std::string::npos, e.what());
        }
        QCOMPARE(r.state_hash(), rh);
        QCOMPARE(validate_action_list({Action{CollapseAction{4, 1}, {}}}, sequence_shape(r))
                     .front()
                     .rule,
                 ValidationRule::PinnedRow);
    }

    // The JSON actions, their pre-flight rules against the state's wLOD shape, and a tick that
    // applies them.
    void actions_json_and_preflight() {
        const ActionList list = parse_action_list(R"([{"action":"collapse","pos":32,"level":1},)"
                                                  R"({"action":"expand","pos":5,"layers":[1]}])");
        QCOMPARE(list.size(), size_t(2));
        QCOMPARE(std::get<CollapseAction>(list[0].op), (CollapseAction{32, 1}));
        QCOMPARE(std::get<ExpandAction>(list[1].op), (ExpandAction{5}));
        QCOMPARE(list[1].layers, std::vector<int>{1});
        QCOMPARE(parse_action_list(to_json(list)), list);
        QVERIFY_THROWS_EXCEPTION(ActionParseError,
                                 parse_action_list(R"({"action":"collapse","pos":3})"));

        std::mt19937 rng(4);
        StateManager s = make_wlod_state(64);
        s.append(random_tokens(rng, 18), EntryKind::Prompt, 0);
        auto rules = [&](const ActionList& l) {
            std::vector<ValidationRule> out;
            for (const ValidationError& e : validate_action_list(l, sequence_shape(s)))
                out.push_back(e.rule);
            return out;
        };
        using R = std::vector<ValidationRule>;
        QCOMPARE(rules({Action{CollapseAction{2, 1}, {}}}), R{ValidationRule::NotABlock});
        QCOMPARE(rules({Action{CollapseAction{16, 1}, {}}}), R{ValidationRule::NotABlock});
        QCOMPARE(rules({Action{CollapseAction{4, 3}, {}}}), R{ValidationRule::WlodLevel});
        QCOMPARE(rules({Action{ExpandAction{4}, {}}}), R{ValidationRule::NotAGist});
        QVERIFY(
            rules({Action{CollapseAction{4, 1}, {}}, Action{CollapseAction{12, 1}, {0}}}).empty());

        const TickResult t = apply_action_list(
            s, {Action{CollapseAction{4, 1}, {}}, Action{CollapseAction{12, 1}, {0}}}, 1);
        QVERIFY(!t.rejected && !t.aborted);
        QCOMPARE(s.rows(0), 12);
        QCOMPARE(s.rows(1), 15);
        QCOMPARE(rules({Action{DeleteAction{3}, {}}}), R{ValidationRule::EditBeforeGist});
        QVERIFY(rules({Action{DeleteAction{13}, {1}}}).empty());
        QVERIFY(rules({Action{CollapseAction{0, 2}, {}}}).empty());  // tokens and gists: 16
        QCOMPARE(rules({Action{CollapseAction{1, 2}, {}}}), R{ValidationRule::NotABlock});
        const TickResult back = apply_action_list(s, {Action{ExpandAction{4}, {}}}, 2);
        QVERIFY(!back.rejected && !back.aborted);
        QCOMPARE(s.rows(0), 15);
        QCOMPARE(s.rows(1), 18);
    }

    // Random streams of collapse / expand / token edits, per layer or on all layers, against
    // the reference tree; after each edit the dirty sets match, then regeneration leaves the
    // cache equal to a fresh full pass and the gists equal a from-scratch computation.
    void random_streams_match_reference() {
        for (unsigned seed : {1u, 2u, 3u}) {
            std::mt19937 rng(seed);
            StateManager s = make_wlod_state(320);
            s.append(random_tokens(rng, 40), EntryKind::Prompt, 0);
            const int L = s.n_layers();
            std::vector<RefLayer> ref(static_cast<size_t>(L));
            for (int l = 0; l < L; ++l)
                for (int64_t id : s.layer_map(l).pos2ledger)
                    ref[size_t(l)].rows.push_back({0, {id}});
            WlodOptions opt;
            opt.full_recompute_below = seed == 3 ? 0.5 : 0.0;
            WlodContext ctx(s, opt);
            ctx.regenerate(s);
            std::set<int64_t> deleted;
            int64_t tick = 1;

            for (int step = 0; step < test::run_length(40, 20); ++step, ++tick) {
                std::uniform_int_distribution<int> pick(0, 9);
                const int op = pick(rng);
                std::vector<int> layers;  // empty: all
                if (op < 6 && pick(rng) < 3) layers = {int(rng() % unsigned(L))};
                std::vector<int> affected = layers;
                if (affected.empty())
                    for (int l = 0; l < L; ++l) affected.push_back(l);
                std::vector<Expected> want(static_cast<size_t>(L));
                const RefLayer& first = ref[size_t(affected[0])];
                const int level = 1 + int(rng() % 2u);
                // Mostly a row where the operation applies in the first affected layer (a
                // random row is seldom a block start), sometimes any row, to see refusals.
                std::vector<int> fits;
                for (int r = 0; r < int(first.rows.size()); ++r)
                    if (op < 4 ? first.block_rows(r, level) > 0 : first.rows[size_t(r)].level > 0)
                        fits.push_back(r);
                const int row = !fits.empty() && pick(rng) < 8
                                    ? fits[rng() % fits.size()]
                                    : int(rng() % unsigned(first.rows.size()));

                if (op < 4) {  // collapse, when every affected layer has the block there
                    bool ok = true;
                    for (int l : affected) ok = ok && ref[size_t(l)].block_rows(row, level) > 0;
                    if (!ok) {
                        QVERIFY_THROWS_EXCEPTION(StateError, s.collapse(layers, row, level, tick));
                        continue;
                    }
                    s.collapse(layers, row, level, tick);
                    for (int l : affected) {
                        want[size_t(l)].temporal = ref[size_t(l)].leaf_offset(row);
                        ref[size_t(l)].collapse(row, level);
                    }
                } else if (op < 6) {  // expand
                    bool ok = true;
                    for (int l : affected)
                        ok = ok && row < int(ref[size_t(l)].rows.size()) &&
                             ref[size_t(l)].rows[size_t(row)].level > 0;
                    if (!ok) {
                        QVERIFY_THROWS_EXCEPTION(StateError, s.expand(layers, row, tick));
                        continue;
                    }
                    s.expand(layers, row, tick);
                    for (int l : affected) {
                        want[size_t(l)].temporal = ref[size_t(l)].leaf_offset(row);
                        ref[size_t(l)].expand(row);
                    }
                } else {  // a Step 4 edit on every layer, after the last gist of each
                    int first_free = 0;
                    for (int l = 0; l < L; ++l)
                        for (int r = 0; r < int(ref[size_t(l)].rows.size()); ++r)
                            if (ref[size_t(l)].rows[size_t(r)].level > 0)
                                first_free = std::max(first_free, r + 1);
                    bool same_rows_all = true;
                    for (int l = 1; l < L; ++l)
                        same_rows_all =
                            same_rows_all && ref[size_t(l)].rows.size() == ref[0].rows.size();
                    const int n_rows = int(ref[0].rows.size());
                    if (!same_rows_all || first_free >= n_rows - 2) {
                        const std::vector<int32_t> t = random_tokens(rng, 3);
                        const int64_t first_id = s.ledger().size();
                        s.append(t, EntryKind::Generated, tick);
                        for (int l = 0; l < L; ++l) {
                            const int64_t n = ref[size_t(l)].n_leaves();
                            for (int i = 0; i < 3; ++i)
                                ref[size_t(l)].rows.push_back({0, {first_id + i}});
                            want[size_t(l)] = {hier_of(n, n + 3, n + 3), n};
                        }
                    } else {
                        const int r = first_free + int(rng() % unsigned(n_rows - first_free - 1));
                        const int kind = int(rng() % 3u);
                        const int64_t first_id = s.ledger().size();
                        const int n_new = 1 + int(rng() % 3u);
                        const std::vector<int32_t> t = random_tokens(rng, n_new);
                        for (int l = 0; l < L; ++l) {
                            RefLayer& R = ref[size_t(l)];
                            const int64_t p = R.leaf_offset(r);
                            auto at = R.rows.begin() + r;
                            if (kind == 0) {
                                for (int i = n_new - 1; i >= 0; --i)
                                    at = R.rows.insert(at, {0, {first_id + i}});
                            } else if (kind == 1) {
                                deleted.insert(at->leaves[0]);
                                R.rows.erase(at);
                            } else {
                                deleted.insert(R.rows[size_t(r)].leaves[0]);
                                deleted.insert(R.rows[size_t(r) + 1].leaves[0]);
                                R.rows.erase(R.rows.begin() + r + 1);
                                R.rows.erase(R.rows.begin() + r);
                                for (int i = n_new - 1; i >= 0; --i)
                                    R.rows.insert(R.rows.begin() + r, {0, {first_id + i}});
                            }
                            const int64_t n = R.n_leaves();
                            const int64_t end = kind == 2 && n_new == 2 ? p + 2 : n;
                            want[size_t(l)] = {hier_of(p, end, n), p};
                        }
                        if (kind == 0)
                            s.insert({}, r, t, EntryKind::Inserted, tick);
                        else if (kind == 1)
                            s.remove({}, r, tick);
                        else
                            s.replace_pair({}, r, r + 1, t, tick);
                    }
                }

                ctx.observe(s);
                for (int l = 0; l < L; ++l) {
                    QVERIFY2(
                        same_rows(state_rows(s, l), ref[size_t(l)].rows),
                        qPrintable(QString("seed %1 step %2 layer %3").arg(seed).arg(step).arg(l)));
                    QCOMPARE(ctx.dirty_hierarchical(l), want[size_t(l)].hier);
                    QCOMPARE(ctx.dirty_temporal_from(l), want[size_t(l)].temporal);
                    const WlodTree tree = ctx.tree(s, l);
                    QCOMPARE(tree.leaves(), ref[size_t(l)].leaves());
                }
                ctx.regenerate(s);
                QVERIFY2(ctx.last_drift() <= 1e-6f, qPrintable(QString("seed %1 step %2 drift %3")
                                                                   .arg(seed)
                                                                   .arg(step)
                                                                   .arg(ctx.last_drift())));
                QVERIFY(all_passed(ctx.check_invariants(s)));
                QVERIFY(all_passed(s.check_invariants()));
                for (int l = 0; l < L; ++l) {
                    QVERIFY(ctx.dirty_hierarchical(l).empty());
                    QCOMPARE(ctx.dirty_temporal_from(l), int64_t(-1));
                    QVERIFY(ctx.gists(l) == ctx.full_gists(s, l));
                    // Nothing lost: every record not deleted by an edit is on the timeline.
                    const std::vector<int64_t> leaves = ref[size_t(l)].leaves();
                    const std::set<int64_t> on_timeline(leaves.begin(), leaves.end());
                    for (const LedgerEntry& e : s.ledger().entries())
                        if (e.kind != EntryKind::Gist)
                            QVERIFY(on_timeline.count(e.id) + deleted.count(e.id) == 1);
                }
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestWlod)
#include "test_wlod.moc"
