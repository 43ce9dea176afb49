// Session settings that each are valid but cannot hold together (issue 26 item 3,
// core/session/option_conflicts.h): refused when the session is made and when a live command
// would create them, naming both settings, with the session unchanged; the neighbouring
// combinations that do hold run with every invariant passing.
#include <QtTest>

#include <string>

#include "core/model/model_loader.h"
#include "core/session/option_conflicts.h"
#include "core/session/refused_setting.h"
#include "core/session/session.h"

using namespace kvw;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

// h2o keeping S 2 + B 4 + W 4 = 10 rows, on a ring of `size` rows.
SessionOptions h2o_on_a_ring(int64_t size, int ring_sinks = 2, int block_size = 1) {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.proposer = "h2o";
    o.policy.budget = {2, 4, 4};
    o.layout = CacheLayout::Ring;
    o.capacity = size;
    o.ring = {RingMode::Pointer, ring_sinks, block_size, false};
    return o;
}

SessionOptions focus(int k, int64_t w_max) {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.capacity = 256;
    o.proposer = "focus";
    o.wlod_k = k;
    o.wlod_max = w_max;
    return o;
}

// The conflict `make` throws, or a failure naming what it did instead.
template <class F>
OptionConflict conflict_of(F make) {
    try {
        make();
    } catch (const OptionConflict& e) {
        return e;
    }
    throw std::runtime_error("no OptionConflict thrown");
}

// The message names both settings, as the command line spells them.
void names_both(const OptionConflict& e, const char* first, const char* second) {
    const std::string what = e.what();
    QVERIFY2(e.first() == first, qPrintable(QString::fromStdString(e.first() + ": " + what)));
    QVERIFY2(e.second() == second, qPrintable(QString::fromStdString(e.second() + ": " + what)));
    QVERIFY2(what.find(first) != std::string::npos, e.what());
    QVERIFY2(what.find(second) != std::string::npos, e.what());
}

void runs_clean(Session& s, int ticks) {
    s.start("The cache");
    for (int i = 0; i < ticks; ++i) {
        s.step();
        const FramePtr f = s.frame();
        for (const InvariantStatus& inv : f->invariants)
            QVERIFY2(inv.passed,
                     qPrintable(QString::fromStdString("tick " + std::to_string(f->tick) + ": " +
                                                       inv.name + ": " + inv.detail)));
    }
}

}  // namespace

class TestOptionConflicts : public QObject {
    Q_OBJECT

private slots:
    // A ring below S + B + W overwrites rows the policy keeps (budget_rows failed on every tick
    // once full); a ring of exactly S + B + W never overwrites, whatever its own sinks (fewer
    // than the policy's here), so that combination is allowed and holds.
    void a_ring_smaller_than_the_policy_budget_is_refused() {
        names_both(conflict_of([] { Session s(h2o_on_a_ring(9), tiny_model()); }), "ring-size",
                   "budget");
        Session fits(h2o_on_a_ring(10, 0), tiny_model());
        runs_clean(fits, 30);
    }

    // Live: a larger budget, a smaller ring, or a selective policy chosen over a small ring is
    // refused with the session as it was, the conflict first naming what the command changed.
    void live_commands_cannot_make_the_ring_too_small() {
        Session s(h2o_on_a_ring(10), tiny_model());
        s.start("The cache");
        s.step();
        const uint64_t hash = s.state_hash();
        PolicyOptions larger = s.options().policy;
        larger.budget.budget = 5;
        const OptionConflict by_budget = conflict_of([&] { s.set_policy_options(larger); });
        names_both(by_budget, "budget", "ring-size");
        QCOMPARE(refused_setting(by_budget), std::string("budget"));
        const OptionConflict by_size =
            conflict_of([&] { s.set_layout(CacheLayout::Ring, s.options().ring, 9); });
        names_both(by_size, "ring-size", "budget");
        QCOMPARE(refused_setting(by_size), std::string("capacity"));  // the window's T field
        QCOMPARE(s.options().policy.budget.budget, 4);
        QCOMPARE(s.state().cache().capacity(), 10);
        QCOMPARE(s.state_hash(), hash);

        SessionOptions manual = h2o_on_a_ring(9);
        manual.proposer = "manual";
        Session m(manual, tiny_model());
        names_both(conflict_of([&] { m.set_proposer("streaming-llm"); }), "budget", "ring-size");
        QCOMPARE(m.options().proposer, std::string("manual"));
    }

    // A tick on a ring decodes a block of N tokens; selective policies and focus make room for
    // one, so every tick overran their budget.
    void blocks_of_several_tokens_with_a_budget_policy_are_refused() {
        names_both(conflict_of([] { Session s(h2o_on_a_ring(32, 2, 2), tiny_model()); }),
                   "tokens-per-frame", "policy");
        SessionOptions f = focus(4, 40);
        f.layout = CacheLayout::Ring;
        f.ring = {RingMode::Roll, 0, 2, false};
        names_both(conflict_of([&] { Session s(f, tiny_model()); }), "tokens-per-frame", "policy");
        Session s(h2o_on_a_ring(32), tiny_model());
        const RingOptions blocks{RingMode::Pointer, 2, 2, false};
        names_both(conflict_of([&] { s.set_layout(CacheLayout::Ring, blocks, 32); }),
                   "tokens-per-frame", "policy");
        QCOMPARE(s.options().ring.tokens_per_block, 1);
        // manual keeps no budget: blocks of 2 stay allowed.
        s.set_proposer("manual");
        s.set_layout(CacheLayout::Ring, blocks, 32);
        QCOMPARE(s.options().ring.tokens_per_block, 2);
    }

    // Focus never folds the first block (BOS) nor the last K rows: W_max 1 failed wlod_budget
    // from tick 1. Below 3K it is refused, at 3K it folds in time.
    // A gist row's phase is its central leaf's, which only final_index keeps: wLOD under
    // reindex or original aborted every collapse (and the abort dropped the brightness mass).
    void wlod_needs_the_final_index_rope_policy() {
        for (RopePolicy rope : {RopePolicy::Reindex, RopePolicy::Original}) {
            SessionOptions o = focus(4, 0);
            o.rope_policy = rope;
            names_both(conflict_of([&] { Session s(o, tiny_model()); }), "rope", "wlod-k");
        }
        SessionOptions o = focus(4, 0);
        Session s(o, tiny_model());
        s.start("The cache remembers what the model was told");
        const uint64_t hash = s.state_hash();
        const size_t events = s.trace().events().size();
        names_both(conflict_of([&] { s.set_rope_policy(RopePolicy::Reindex); }), "rope", "wlod-k");
        SessionOptions plain;
        plain.model = "synthetic:tiny";
        plain.rope_policy = RopePolicy::Original;
        Session off(plain, tiny_model());
        off.start("The cache remembers what the model was told");
        names_both(conflict_of([&] { off.set_wlod(4, 0); }), "wlod-k", "rope");
        QCOMPARE(s.state_hash(), hash);
        QCOMPARE(s.trace().events().size(), events);
        QCOMPARE(s.options().rope_policy, RopePolicy::FinalIndex);
        runs_clean(s, 8);
    }

    // No row at or before a gist may be deleted or merged: the evictions of a selective policy
    // and pair-merge's merges were rejected as soon as a block was collapsed under them.
    void a_selective_policy_with_wlod_is_refused() {
        SessionOptions o = focus(4, 0);
        for (const char* policy : {"h2o", "streaming-llm", "random", "pair-merge"}) {
            o.proposer = policy;
            names_both(conflict_of([&] { Session s(o, tiny_model()); }), "policy", "wlod-k");
        }
        o.proposer = "h2o";
        o.wlod_k = 0;
        Session s(o, tiny_model());
        s.start("The cache remembers what the model was told");
        const uint64_t hash = s.state_hash();
        names_both(conflict_of([&] { s.set_wlod(4, 0); }), "wlod-k", "policy");
        QCOMPARE(s.state_hash(), hash);
        QCOMPARE(s.options().wlod_k, 0);
    }

    // wLOD off keeps its K and the gist rows there are: a gist made so must not meet a policy
    // that edits rows either (the soak found h2o's evictions rejected after one).
    void gists_made_with_wlod_off_never_meet_a_policy_that_edits_rows() {
        SessionOptions o;
        o.model = "synthetic:tiny";
        Session s(o, tiny_model());
        s.start("The cache remembers what the model was told and more");
        s.set_wlod(4, 0);
        s.set_wlod(0, 0);  // off: K stays, so collapse still works under manual
        QVERIFY(!s.apply_now({Action{CollapseAction{4, 1}, {}}}).rejected);
        QVERIFY(s.state().first_gist_row().has_value());
        uint64_t hash = s.state_hash();
        size_t events = s.trace().events().size();
        names_both(conflict_of([&] { s.set_proposer("h2o"); }), "policy", "collapse");
        QCOMPARE(s.options().proposer, std::string("manual"));
        QCOMPARE(s.state_hash(), hash);
        QCOMPARE(s.trace().events().size(), events);

        QVERIFY(!s.apply_now({Action{ExpandAction{4}, {}}}).rejected);
        s.set_proposer("streaming-llm");
        hash = s.state_hash();
        events = s.trace().events().size();
        const ActionList collapse = {Action{CollapseAction{4, 1}, {}}};
        names_both(conflict_of([&] { s.apply_now(collapse); }), "collapse", "policy");
        names_both(conflict_of([&] { s.inject(collapse); }), "collapse", "policy");
        QCOMPARE(s.state_hash(), hash);
        QCOMPARE(s.trace().events().size(), events);
    }

    void focus_needs_a_foldable_block_below_w_max() {
        names_both(conflict_of([] { Session s(focus(4, 1), tiny_model()); }), "policy", "wlod-max");
        names_both(conflict_of([] { Session s(focus(4, 11), tiny_model()); }), "policy",
                   "wlod-max");
        Session ok(focus(4, 12), tiny_model());
        runs_clean(ok, 10);
        // Live: a smaller W_max under focus, or focus over a small W_max.
        const OptionConflict by_wlod = conflict_of([&] { ok.set_wlod(4, 8); });
        names_both(by_wlod, "wlod-max", "policy");
        QCOMPARE(ok.options().wlod_max, int64_t(12));
        SessionOptions manual = focus(4, 8);
        manual.proposer = "manual";
        Session m(manual, tiny_model());
        names_both(conflict_of([&] { m.set_proposer("focus"); }), "policy", "wlod-max");
        QCOMPARE(m.options().proposer, std::string("manual"));
    }
};

QTEST_GUILESS_MAIN(TestOptionConflicts)
#include "test_option_conflicts.moc"
