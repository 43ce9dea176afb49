// A proposed action that pre-flight refuses is dropped, not the tick (issue 26's 100,000-tick
// soak; docs/ARCHITECTURE.md §2.1): focus reads layer 0's rows for every layer, so after an edit
// on some layers only its collapse can be a partial block elsewhere. Before, the whole list was
// refused, the sampled token's add included, and focus proposed the same collapse again on every
// tick: the session could never step again. Injected actions still make the tick fail as a whole,
// and traces written before the rule (no "invalid_proposals" in the header) replay as they ran.
#include <QtTest>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/model/model_loader.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "core/session/trace_events.h"

using namespace kvw;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

SessionOptions wlod_options() {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.capacity = 256;
    o.wlod_k = 3;
    o.wlod_max = 12;
    o.sampling.seed = 26;
    return o;
}

// The layers in `shorter` lose rows 1-6 and the others keep theirs, so from row 1 on the layers'
// rows name different timeline positions and their lengths differ by 6.
void skew_layers(Session& s, const std::vector<int>& shorter) {
    ActionList deletes;
    for (int row = 1; row <= 6; ++row) deletes.push_back(Action{DeleteAction{row}, shorter});
    const TickResult r = s.apply_now(deletes);
    QVERIFY(!r.rejected && !r.aborted);
    QCOMPARE(s.state().rows(shorter.front()) + 6, s.state().rows(shorter.front() == 0 ? 1 : 0));
}

// A gist in layer 0 only (a collapse restricted to it), then focus with room to spare: it
// proposes to expand layer 0's brightest gist on every layer, and pre-flight refuses the
// expansion in the layers that hold tokens at that row (NotAGist), on every tick.
Session gist_in_layer_zero_only(InvalidProposals rule) {
    SessionOptions o = wlod_options();
    o.wlod_max = 200;
    o.invalid_proposals = rule;
    Session s(o, tiny_model());
    s.start("The cache remembers what the model was told");
    if (const TickResult r = s.apply_now({Action{CollapseAction{3, 1}, {0}}}); r.rejected)
        qFatal("the collapse was refused: %s", r.rejections.front().message.c_str());
    if (s.state().rows(0) + 2 != s.state().rows(1)) qFatal("the collapse reached other layers");
    s.set_proposer("focus");
    return s;
}

const char* first_message(const std::vector<ValidationError>& faults) {
    return faults.empty() ? "" : faults.front().message.c_str();
}

}  // namespace

class TestProposalPreflight : public QObject {
    Q_OBJECT
private slots:
    void a_refused_proposal_is_dropped_and_the_tick_goes_on() {
        Session s = gist_in_layer_zero_only(InvalidProposals::Drop);
        int64_t dropped = 0;
        for (int i = 0; i < 12; ++i) {
            const int64_t before = s.tick();
            const TickResult r = s.step();
            QVERIFY2(!r.rejected, first_message(r.rejections));
            QCOMPARE(s.tick(), before + 1);
            dropped += int64_t(r.dropped_proposals.size());
            // What went in is what the trace says went in: the add, no refused proposal.
            QCOMPARE(std::get<AddAction>(s.frame()->last_actions.back().op).token_id,
                     s.state().tokens(0).back());
        }
        QVERIFY(dropped > 0);  // the scenario does reach the refusal this test is about
        QVERIFY(s.frame()->all_invariants_pass());
        const std::string event = s.trace().events().back().dump();
        QVERIFY2(event.find("dropped_proposals") != std::string::npos, event.c_str());
        const ReplayReport report = replay_trace(s.trace());
        QVERIFY2(report.ok(), report.ok() ? "" : report.mismatches.front().field.c_str());
    }

    void an_injected_fault_still_refuses_the_tick() {
        Session s = gist_in_layer_zero_only(InvalidProposals::Drop);
        const int rows = s.state().rows(0);
        s.inject({Action{DeleteAction{rows - 1}, {}}});
        // Valid when it was injected; out of range once apply_now has deleted that row.
        QVERIFY(!s.apply_now({Action{DeleteAction{rows - 1}, {}}}).rejected);
        const TickResult r = s.step();
        QVERIFY(r.rejected);
        QCOMPARE(r.rejections.front().action_index, 0);
        QCOMPARE(s.state().rows(0), rows - 1);  // the sampled token did not go in either
    }

    void a_trace_from_before_the_rule_replays_as_it_ran() {
        Session s = gist_in_layer_zero_only(InvalidProposals::RejectTick);
        int rejected = 0;
        for (int i = 0; i < 4; ++i) rejected += s.step().rejected ? 1 : 0;
        QCOMPARE(rejected, 4);  // the old rule: the whole tick is refused, every time
        const nlohmann::json& header = s.trace().events().front();
        QVERIFY(!header.contains("invalid_proposals"));
        QCOMPARE(options_from_header(header, "t").invalid_proposals, InvalidProposals::RejectTick);
        const ReplayReport report = replay_trace(s.trace());
        QVERIFY2(report.ok(), report.ok() ? "" : report.mismatches.front().field.c_str());
    }

    void focus_collapses_blocks_whole_in_every_layer_data() {
        QTest::addColumn<std::vector<int>>("shorter");
        QTest::newRow("layer 0 shorter") << std::vector<int>{0};
        // The soak's case: focus's view (layer 0) is longer than layer 3.
        QTest::newRow("layers 1-3 shorter") << std::vector<int>{1, 2, 3};
    }

    void focus_collapses_blocks_whole_in_every_layer() {
        // Focus reads layer 0's rows for every layer: after an edit on some layers its darkest
        // block in layer 0 could be a partial block elsewhere, refused on every tick (the soak's
        // stall), and the budget was layer 0's alone.
        QFETCH(std::vector<int>, shorter);
        SessionOptions o = wlod_options();
        o.wlod_max = 20;
        Session s(o, tiny_model());
        s.start("The cache remembers what the model was told and what it saw");
        skew_layers(s, shorter);
        s.set_proposer("focus");
        // 20 ticks: past W_max, and within what a two-level tree over K = 3 can fold into it while
        // the layers' lengths differ by 6.
        int64_t longest = 0;
        for (int i = 0; i < 20; ++i) {
            for (int l = 0; l < s.state().n_layers(); ++l)
                longest = std::max<int64_t>(longest, s.state().rows(l));
            const TickResult r = s.step();
            QVERIFY2(!r.rejected, first_message(r.rejections));
            QVERIFY2(r.dropped_proposals.empty(), first_message(r.dropped_proposals));
        }
        QVERIFY(longest >= o.wlod_max);  // focus had to collapse to keep it
        // The budget is kept in every layer: focus found blocks that every layer can fold.
        for (int l = 0; l < s.state().n_layers(); ++l)
            QVERIFY2(s.state().rows(l) <= o.wlod_max,
                     qPrintable(QString::number(s.state().rows(l))));
        QVERIFY(s.frame()->all_invariants_pass());
    }
};

QTEST_MAIN(TestProposalPreflight)
#include "test_proposal_preflight.moc"
