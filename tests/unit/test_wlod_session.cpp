// wLOD in a session (ARCHITECTURE §14): the focus policy keeps the rows within W_max by
// collapsing and expands gists when there is room, with every wLOD invariant (incremental ==
// full included) holding after every tick, and a traced wLOD session replays to the same hashes.
#include <QtTest>

#include <algorithm>
#include <memory>
#include <string>

#include "core/model/model_loader.h"
#include "core/session/replay.h"
#include "core/session/session.h"

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

    void focus_expands_when_there_is_room() {
        Session s(focus_options(4, 24), tiny_model());
        s.start("in the beginning god created the heaven and the earth");
        for (int i = 0; i < 30; ++i) s.step();
        QVERIFY(gists_in(s) > 0);
        // A larger budget: the gists come back out, the brightest first, one per tick.
        Session t(focus_options(4, 1000), tiny_model());
        t.start("in the beginning god created the heaven and the earth");
        const ActionList collapse{Action{CollapseAction{0, 1}, {}},
                                  Action{CollapseAction{4, 1}, {}}};
        t.apply_now(collapse);
        const int before = t.state().rows(0);
        t.step();
        t.step();
        QCOMPARE(t.state().rows(0), before + 2 * 3 + 2);  // two expansions, two tokens
        const FramePtr frame = t.frame();
        for (const InvariantStatus& inv : frame->invariants) QVERIFY(inv.passed);
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
