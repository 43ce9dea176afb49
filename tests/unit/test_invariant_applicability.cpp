// Invariants that do not apply (docs/ARCHITECTURE.md §6, §14): `wlod_budget` is the focus
// policy's goal, so under `manual` a context past W_max passes as "needs a policy: focus"
// (with what it found) and applies again once focus runs; without a W_max it does not apply;
// `scales_finite` does not apply to storage types without scales and applies to int8; the
// selective policies' checks apply from the first tick. InvariantHistory folds the layers: a
// name applies when any layer's check does.
#include <QtTest>

#include <memory>
#include <string>

#include "core/model/model_loader.h"
#include "core/session/invariant_history.h"
#include "core/session/session.h"

using namespace kvw;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

SessionOptions options(const std::string& policy) {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.capacity = 256;
    o.proposer = policy;
    o.sampling.seed = 3;
    return o;
}

const InvariantStatus& status(const FramePtr& f, const std::string& name) {
    for (const InvariantStatus& s : f->invariants)
        if (s.name == name) return s;
    qFatal("no invariant %s", name.c_str());
}

}  // namespace

class TestInvariantApplicability : public QObject {
    Q_OBJECT
private slots:
    void wlod_budget_needs_the_policy_that_keeps_it() {
        Session s(options("manual"), tiny_model());
        s.start("in the beginning god created the heaven and the earth");
        // 12 = 3K, the least W_max focus is allowed (it never folds the first block nor the
        // last K rows: core/session/option_conflicts.h).
        s.set_wlod(4, 12);
        for (int i = 0; i < 8; ++i) s.step();
        QVERIFY(s.state().rows(0) > 12);  // manual collapses nothing
        FramePtr f = s.frame();
        const InvariantStatus& idle = status(f, "wlod_budget");
        QVERIFY(idle.passed);
        QVERIFY2(idle.not_applicable.starts_with("needs a policy: focus") &&
                     idle.not_applicable.find("W_max 12") != std::string::npos,
                 idle.not_applicable.c_str());
        QVERIFY(f->all_invariants_pass());
        // The wLOD checks that hold for every state apply under manual too.
        QVERIFY(status(f, "wlod_contiguity").not_applicable.empty());

        s.set_proposer("focus");
        s.step();
        f = s.frame();
        QVERIFY(status(f, "wlod_budget").not_applicable.empty());

        s.set_wlod(4, 0);  // no W_max: nothing to keep
        f = s.frame();
        QVERIFY2(status(f, "wlod_budget").not_applicable.starts_with("no W_max"),
                 status(f, "wlod_budget").not_applicable.c_str());
    }

    void scales_finite_applies_to_scaled_storage_only() {
        Session s(options("manual"), tiny_model());
        s.start("in the beginning");
        QVERIFY2(status(s.frame(), "scales_finite").not_applicable.find("keep no scales") !=
                     std::string::npos,
                 status(s.frame(), "scales_finite").not_applicable.c_str());
        QVERIFY(status(s.frame(), "rows_aligned").not_applicable.empty());
        s.set_kv_types(KvType::Int8, KvType::F32);
        QVERIFY(status(s.frame(), "scales_finite").not_applicable.empty());
    }

    void selective_checks_apply_from_the_first_tick() {
        SessionOptions o = options("h2o");
        o.policy.budget = {2, 3, 3};
        Session s(o, tiny_model());
        s.start("in the beginning god created the heaven and the earth");
        QVERIFY(!status(s.frame(), "budget_rows").not_applicable.empty());
        s.step();
        QVERIFY(status(s.frame(), "budget_rows").not_applicable.empty());
    }

    void history_folds_layers() {
        InvariantHistory h;
        h.record({{"a", true, 0, -1, {}, "why not"},
                  {"a", true, 1, -1, {}, "why not"},
                  {"b", true, 0, -1, {}, "why not"},
                  {"b", false, 1, 5, "broken", {}}},
                 7);
        const std::vector<InvariantStatus>& s = h.statuses();
        QCOMPARE(s.size(), size_t(2));
        QVERIFY(s[0].passed);
        QCOMPARE(s[0].not_applicable, std::string("why not"));
        QCOMPARE(s[0].last_held_tick, int64_t(7));
        QVERIFY(!s[1].passed);
        QVERIFY(s[1].not_applicable.empty());
        QCOMPARE(s[1].row, 5);
        QVERIFY(!h.all_passed());
    }
};

QTEST_MAIN(TestInvariantApplicability)
#include "test_invariant_applicability.moc"
