// wLOD in a session (ARCHITECTURE §14): the focus policy keeps the rows within W_max by
// collapsing and expands gists when there is room, with every wLOD invariant (incremental ==
// full included) holding after every tick, and a traced wLOD session replays to the same hashes;
// on int8 rows, incremental == full allows the storage's rounding.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/cache/kv_storage.h"
#include "core/model/model_loader.h"
#include "core/policy/focus_proposer.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "core/state/state_error.h"

using namespace kvw;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

SessionOptions focus_options(int k, int64_t w_max) {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.capacity = 256;
    o.proposer = "focus";
    o.sampling.seed = 3;
    o.wlod_k = k;
    o.wlod_max = w_max;
    return o;
}

int64_t gists_in(const Session& s) {
    const auto entries = s.state().ledger().entries();
    return std::count_if(entries.begin(), entries.end(),
                         [](const LedgerEntry& e) { return e.kind == EntryKind::Gist; });
}

// [layer][row] brightness of the rows a session holds now.
std::vector<std::vector<float>> row_brightness(const Session& s) {
    std::vector<std::vector<float>> out(size_t(s.state().n_layers()));
    for (int l = 0; l < s.state().n_layers(); ++l)
        for (int64_t id : s.state().layer_map(l).pos2ledger)
            out[size_t(l)].push_back(s.state().ledger().brightness(id, l));
    return out;
}

// One step, checked against the brightness rule written out here (ARCHITECTURE §6, §14):
// every row held before the step gets b' = min(max, b * decay + boost * share), share being the
// attention mass the previous append measured, relative to a uniform share. The mass must be
// there, one value per row: every step of these sessions follows an append. Returns how many
// rows got a boost on top of their decay.
int step_follows_brightness_rule(Session& s) {
    const StateManager& st = s.state();
    const BrightnessParams& p = s.options().brightness;
    const std::vector<std::vector<float>> mass = st.last_attention_mass();
    if (mass.size() != size_t(st.n_layers())) {
        QTest::qFail("no attention mass before the step", __FILE__, __LINE__);
        return -1;
    }
    std::vector<std::vector<int64_t>> ids;
    const std::vector<std::vector<float>> before = row_brightness(s);
    for (int l = 0; l < st.n_layers(); ++l) ids.push_back(st.layer_map(l).pos2ledger);
    const TickResult r = s.step();
    if (r.rejected || r.aborted) {
        QTest::qFail("the step did not go through", __FILE__, __LINE__);
        return -1;
    }
    int boosted = 0;
    for (size_t l = 0; l < ids.size(); ++l) {
        const std::vector<float>& m = mass[l];
        if (m.size() != ids[l].size()) {
            QTest::qFail(qPrintable(QString("layer %1: mass for %2 rows, %3 rows held")
                                        .arg(l)
                                        .arg(m.size())
                                        .arg(ids[l].size())),
                         __FILE__, __LINE__);
            return -1;
        }
        double total = 0;
        for (float x : m) total += x;
        for (size_t r = 0; r < m.size(); ++r) {
            const double share = total > 0 ? m[r] * double(m.size()) / total : 0.0;
            const double decayed = double(before[l][r]) * p.decay;
            const double expected = std::min(double(p.max), decayed + p.boost * share);
            const double got = st.ledger().brightness(ids[l][r], int(l));
            if (std::abs(got - expected) > 1e-3 * std::max(1.0, expected)) {
                QTest::qFail(qPrintable(QString("layer %1 row %2: brightness %3, rule gives %4")
                                            .arg(l)
                                            .arg(r)
                                            .arg(got)
                                            .arg(expected)),
                             __FILE__, __LINE__);
                return -1;
            }
            boosted += expected > decayed + 1e-3;
        }
    }
    return boosted;
}
}  // namespace

class TestWlodSession : public QObject {
    Q_OBJECT
private slots:
    void focus_keeps_the_budget() {
        Session s(focus_options(4, 24), tiny_model());
        s.start("in the beginning god created the heaven and the earth");
        QVERIFY(s.wlod());
        int max_rows = 0;
        for (int i = 0; i < 60; ++i) {
            const TickResult r = s.step();
            QVERIFY2(!r.rejected && !r.aborted, qPrintable(QString::number(i)));
            const FramePtr frame = s.frame();
            QVERIFY(frame->invariants.size() > 0);
            for (const InvariantStatus& inv : frame->invariants)
                QVERIFY2(inv.passed,
                         qPrintable(QString::fromStdString(inv.name + ": " + inv.detail)));
            max_rows = std::max(max_rows, s.state().rows(0));
            QVERIFY(s.wlod()->last_drift() >= 0.0f && s.wlod()->last_drift() <= 1e-6f);
        }
        // 60 tokens generated after a prompt of about a dozen, in at most 24 rows + 1 append.
        QVERIFY(max_rows <= 25);
        QVERIFY(gists_in(s) >= 8);
        bool has_level2 = false;
        for (int64_t id : s.state().layer_map(0).pos2ledger)
            if (const GistRecord* g = s.state().gist(id)) has_level2 = has_level2 || g->level == 2;
        QVERIFY(has_level2);
    }

    // int8 rows differ from a fresh float pass by their rounding however exactly they were
    // regenerated: incremental == full holds them to the int8 tolerance, not to 1e-5.
    void int8_rounding_is_no_regeneration_difference() {
        SessionOptions o = focus_options(4, 0);
        o.proposer = "manual";
        o.k_type = o.v_type = KvType::Int8;
        Session s(o, tiny_model());
        s.start("in the beginning god created the heaven and the earth");
        s.apply_now({Action{CollapseAction{4, 1}, {}}});
        s.step();
        s.step();
        QVERIFY2(s.wlod()->last_drift() > 1e-5f,
                 qPrintable(QString::number(s.wlod()->last_drift())));
        QVERIFY(s.wlod()->last_drift() <= kv_type_drift_tolerance(KvType::Int8));
        const FramePtr frame = s.frame();
        for (const InvariantStatus& inv : frame->invariants)
            QVERIFY2(inv.passed, qPrintable(QString::fromStdString(inv.name + ": " + inv.detail)));
    }

    // With wLOD never on there is no block size: a collapse is refused by pre-flight (WlodOff)
    // and by the primitive, the state unchanged; it used to run with a hidden K of 32 (issue 26
    // item 8). Once a K was chosen, turning wLOD off keeps it, and collapse works with it.
    void a_collapse_without_a_chosen_k_is_refused() {
        SessionOptions o = focus_options(0, 0);
        o.proposer = "manual";
        Session s(o, tiny_model());
        s.start("in the beginning god created the heaven and the earth and the light");
        const uint64_t hash = s.state_hash();
        const TickResult r = s.apply_now({Action{CollapseAction{4, 1}, {}}});
        QVERIFY(r.rejected);
        QCOMPARE(r.rejections.front().rule, ValidationRule::WlodOff);
        QVERIFY(r.rejections.front().message.find("--wlod-k") != std::string::npos);
        QCOMPARE(s.state_hash(), hash);
        s.set_wlod(4, 0);
        s.set_wlod(0, 0);
        QVERIFY(!s.apply_now({Action{CollapseAction{4, 1}, {}}}).rejected);
        QCOMPARE(gists_in(s), int64_t(1));
    }

    void focus_expands_when_there_is_room() {
        Session s(focus_options(4, 24), tiny_model());
        s.start("in the beginning god created the heaven and the earth");
        for (int i = 0; i < 30; ++i) s.step();
        QVERIFY(gists_in(s) > 0);
        // A larger budget: the gists come back out, the brightest first, one per tick.
        Session t(focus_options(4, 1000), tiny_model());
        t.start("in the beginning god created the heaven and the earth");
        while (t.state().rows(0) < 12) t.step();
        const ActionList collapse{Action{CollapseAction{4, 1}, {}},
                                  Action{CollapseAction{8, 1}, {}}};
        t.apply_now(collapse);
        const int before = t.state().rows(0);
        t.step();
        t.step();
        QCOMPARE(t.state().rows(0), before + 2 * 3 + 2);  // two expansions, two tokens
        const FramePtr frame = t.frame();
        for (const InvariantStatus& inv : frame->invariants) QVERIFY(inv.passed);
    }

    // Session::set_wlod (the window's Session menu, `wlod K W_MAX` in scripts): on in the middle
    // of a sequence whose later rows an edit left stale, the whole tree regenerates and the
    // cache equals a fresh pass; the budget changes alone; K cannot change under a gist row;
    // bad values are typed errors that change nothing; off keeps the gist rows; the trace
    // replays and undo takes a change back.
    void set_wlod_on_change_and_off() {
        SessionOptions o = focus_options(0, 0);
        o.proposer = "manual";
        Session s(o, tiny_model());
        s.start("in the beginning god created the heaven and the earth");
        for (int i = 0; i < 4; ++i) s.step();
        s.apply_now({Action{DeleteAction{3}, {}}});  // rows after 3 keep stale K/V
        QVERIFY(!s.wlod());
        QVERIFY(s.state().measure_drift().first_diverging_layer >= 0);

        s.set_wlod(4, 24);
        QVERIFY(s.wlod());
        QCOMPARE(s.state().wlod_k(), 4);
        QCOMPARE(s.state().measure_drift().first_diverging_layer, -1);
        FramePtr f = s.frame();
        QCOMPARE(f->wlod_k, 4);
        QCOMPARE(f->wlod_max, int64_t(24));
        QCOMPARE(f->wlod.size(), size_t(s.state().n_layers()));
        int wlod_invariants = 0;
        for (const InvariantStatus& inv : f->invariants) {
            wlod_invariants += inv.name.starts_with("wlod_");
            QVERIFY2(inv.passed, qPrintable(QString::fromStdString(inv.name + ": " + inv.detail)));
        }
        QCOMPARE(wlod_invariants, 6);
        // Every complete level-1 node has its gist, as if wLOD had been on from the start.
        const auto full = s.wlod()->full_gists(s.state(), 0);
        QVERIFY(!full.empty());
        QCOMPARE(s.wlod()->gists(0), full);

        s.set_proposer("focus");
        for (int i = 0; i < 30; ++i) s.step();
        QVERIFY(s.state().rows(0) <= 25);
        QVERIFY(s.state().first_gist_row().has_value());

        // K cannot change under a gist row; nothing changes then.
        const uint64_t hash = s.state_hash();
        const size_t events = s.trace().events().size();
        for (const auto& [k, w] : {std::pair<int, int64_t>{8, 24}, {1, 24}, {-2, 24}, {4, -1}}) {
            try {
                s.set_wlod(k, w);
                QFAIL(qPrintable(QString("set_wlod(%1, %2) was taken").arg(k).arg(w)));
            } catch (const StateError& e) {
                QCOMPARE(e.kind(), StateErrorKind::WlodShape);
            }
            QCOMPARE(s.state_hash(), hash);
            QCOMPARE(s.trace().events().size(), events);
            QCOMPARE(s.options().wlod_k, 4);
            QCOMPARE(s.state().wlod_k(), 4);
        }
        try {
            s.set_wlod(8, 24);
        } catch (const StateError& e) {
            QVERIFY2(std::string(e.what()).find("expand") != std::string::npos, e.what());
        }

        s.set_wlod(4, 40);  // the budget alone
        QCOMPARE(s.wlod()->options().w_max, int64_t(40));
        QCOMPARE(s.frame()->wlod_max, int64_t(40));

        const uint64_t on_hash = s.state_hash();
        s.set_wlod(0, 0);
        QVERIFY(!s.wlod());
        QVERIFY(s.state().first_gist_row().has_value());  // the gists stay rows
        f = s.frame();
        QCOMPARE(f->wlod_k, 0);
        for (const InvariantStatus& inv : f->invariants) QVERIFY(!inv.name.starts_with("wlod_"));

        s.undo(1);
        QVERIFY(s.wlod());
        QCOMPARE(s.state_hash(), on_hash);
        const ReplayReport report = replay_trace(s.trace());
        QVERIFY(report.checked > 0);
        QVERIFY2(report.ok(), report.ok() ? "" : report.mismatches[0].field.c_str());
    }

    // Issue 25 item 1: the regeneration that ends every command with wLOD on dropped the last
    // append's attention mass, so brightness only decayed. Without a gist, a wLOD session has
    // the brightness of the same session with wLOD off, and both follow the rule.
    void brightness_with_wlod_follows_attention() {
        SessionOptions off = focus_options(0, 0);
        off.proposer = "manual";
        SessionOptions on = focus_options(4, 0);
        on.proposer = "manual";
        Session a(off, tiny_model()), b(on, tiny_model());
        a.start("in the beginning god created the heaven and the earth");
        b.start("in the beginning god created the heaven and the earth");
        QVERIFY(b.wlod());
        int boosted = 0;
        for (int i = 0; i < 12; ++i) {
            a.step();
            boosted += step_follows_brightness_rule(b);
            if (QTest::currentTestFailed()) return;
            QCOMPARE(b.state().tokens(0), a.state().tokens(0));
            QCOMPARE(row_brightness(b), row_brightness(a));
        }
        QVERIFY(!b.state().first_gist_row().has_value());
        QVERIFY2(boosted > 0, "every row only decayed");
    }

    // The same rule on the ticks of the focus policy, collapse and expand ticks included: the
    // append comes after the tick's collapse or expand, so its mass is one value per row of the
    // rows left, a gist row counting as one row with its own record's brightness.
    void brightness_follows_attention_on_collapse_ticks() {
        Session s(focus_options(4, 24), tiny_model());
        s.start("in the beginning god created the heaven and the earth");
        int boosted = 0;
        for (int i = 0; i < 40; ++i) {
            boosted += step_follows_brightness_rule(s);
            if (QTest::currentTestFailed()) return;
        }
        QVERIFY(gists_in(s) >= 4);
        QVERIFY2(boosted > 0, "every row only decayed");
        // A gist row in the rows got a boost of its own at least once: it is not pure decay
        // from the full brightness it entered with.
        bool gist_lit = false;
        const BrightnessParams& p = s.options().brightness;
        for (int64_t id : s.state().layer_map(0).pos2ledger) {
            if (!s.state().gist(id)) continue;
            const float b = s.state().ledger().brightness(id, 0);
            const int64_t born = s.state().ledger().at(id).born_tick;
            const double pure = p.initial * std::pow(double(p.decay), double(s.tick() - born));
            gist_lit = gist_lit || std::abs(b - pure) > 1e-3 * pure;
        }
        QVERIFY(gist_lit);
    }

    // Issue 25 item 5: focus never proposes a block holding BOS (or a ring sink row), even when
    // it is the darkest; a session that collapses a lot keeps BOS as its row 0 in every layer,
    // and a collapse of it asked for by hand is refused in pre-flight, nothing changed.
    void focus_never_collapses_bos() {
        const std::vector<std::vector<uint8_t>> levels{std::vector<uint8_t>(12, 0)};
        const std::vector<std::vector<int32_t>> tokens{std::vector<int32_t>(12, 5)};
        std::vector<std::vector<float>> bright{std::vector<float>(12, 200.0f)};
        for (int r = 0; r < 4; ++r) bright[0][size_t(r)] = 1.0f;  // block 0 is the darkest
        const Tokenizer& tok = tiny_model()->tokenizer;
        ProposerInput input{tokens, bright, tok};
        input.row_levels = &levels;
        input.wlod_k = 4;
        input.wlod_max = 8;
        FocusProposer focus;
        QCOMPARE(focus.propose(input), (ActionList{Action{CollapseAction{0, 1}, {}}}));
        input.pinned_rows = 1;
        QCOMPARE(focus.propose(input), (ActionList{Action{CollapseAction{4, 1}, {}}}));

        Session s(focus_options(4, 16), tiny_model());
        s.start("in the beginning god created the heaven and the earth");
        const int32_t bos = tiny_model()->tokenizer.bos_id();
        for (int i = 0; i < 40; ++i) {
            const TickResult r = s.step();
            QVERIFY(!r.rejected && !r.aborted);
        }
        QVERIFY(gists_in(s) >= 4);
        for (int l = 0; l < s.state().n_layers(); ++l)
            QCOMPARE(s.state().ledger().at(s.state().layer_map(l).pos2ledger[0]).token_id, bos);
        const uint64_t hash = s.state_hash();
        const TickResult refused = s.apply_now({Action{CollapseAction{0, 1}, {}}});
        QVERIFY(refused.rejected);
        QCOMPARE(refused.rejections.front().rule, ValidationRule::PinnedRow);
        QCOMPARE(s.state_hash(), hash);
    }

    void wlod_trace_replays() {
        Session s(focus_options(4, 20), tiny_model());
        s.start("and the earth was without form");
        for (int i = 0; i < 25; ++i) s.step();
        const ReplayReport report = replay_trace(s.trace());
        QVERIFY(report.checked > 0);
        QVERIFY2(report.ok(),
                 report.ok()
                     ? ""
                     : qPrintable(QString::fromStdString(report.mismatches[0].field + " " +
                                                         report.mismatches[0].expected + " vs " +
                                                         report.mismatches[0].actual)));
    }
};

QTEST_APPLESS_MAIN(TestWlodSession)
#include "test_wlod_session.moc"
