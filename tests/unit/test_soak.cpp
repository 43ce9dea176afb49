// The soak: its random lists are what pre-flight accepts and refuses, a short run exercises
// every kind of command and passes, its checks catch a broken mirror and an edit the reference
// did not see, and a layout switch keeps the state hash and replays.
#include <QtTest>

#include <random>

#include "core/model/model_loader.h"
#include "core/session/replay.h"
#include "core/session/soak.h"
#include "core/state/action_validation.h"
#include "tests/run_length.h"

using namespace kvw;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

SoakOptions small() {
    SoakOptions o;
    o.capacity = 64;
    return o;
}

}  // namespace

class TestSoak : public QObject {
    Q_OBJECT
private slots:
    void random_lists_are_valid_or_invalid_as_made() {
        std::mt19937_64 rng(11);
        int non_empty = 0;
        for (int trial = 0; trial < 3000; ++trial) {
            SoakSequence seq;
            const int layers = 1 + int(rng() % 4);
            seq.capacity = 40;
            seq.vocab_size = 50;
            // Some layers start with BOS (token 1), which no insert may go before.
            seq.bos_id = 1;
            for (int l = 0; l < layers; ++l) {
                seq.tokens.emplace_back(size_t(4 + rng() % 30), int32_t(2 + rng() % 48));
                if (rng() % 2) seq.tokens.back()[0] = seq.bos_id;
            }
            SequenceShape shape;
            shape.capacity = seq.capacity;
            shape.vocab_size = seq.vocab_size;
            for (int l = 0; l < layers; ++l) {
                shape.rows_per_layer.push_back(seq.rows(l));
                shape.starts_with_bos.push_back(seq.starts_with_bos(l));
            }

            const ActionList valid = valid_actions(rng, seq, 4, 2, true);
            const std::vector<ValidationError> errors = validate_action_list(valid, shape);
            QVERIFY2(errors.empty(), errors.empty() ? "" : errors[0].message.c_str());
            non_empty += !valid.empty();
            // The list leaves room for two more rows and at least four rows in every layer.
            SoakSequence after = seq;
            apply_to_reference(after, valid);
            for (int l = 0; l < layers; ++l) {
                QVERIFY(after.rows(l) >= 4);
                QVERIFY(after.rows(l) + 2 <= seq.capacity);
            }
            QVERIFY(!validate_action_list(invalid_actions(rng, seq), shape).empty());
        }
        QVERIFY(non_empty > 2500);
    }

    // Within a session the soak samples what the checkpoints hold against checkpoint_bound()
    // (the ledger once and a few live rows per copy), not only RSS between sessions.
    void the_soak_checks_the_checkpoints_within_a_session() {
        SoakOptions o = small();
        o.ticks = test::run_length(200, 120);
        o.segment_ticks = o.ticks;
        o.memory_check_ticks = 40;
        const SoakReport r = run_soak(o);
        QVERIFY2(r.ok(), r.failure.c_str());
        QCOMPARE(r.counts.sessions, int64_t(1));
        QVERIFY(r.peak_checkpoint_bytes > 0);  // sampled while the session was alive
    }

    void a_short_soak_runs_every_command_and_passes() {
        SoakOptions o = small();
        o.ticks = 150;
        o.segment_ticks = 50;
        const SoakReport r = run_soak(o);
        QVERIFY2(r.ok(), r.failure.c_str());
        const SoakCounts& c = r.counts;
        QCOMPARE(c.ticks, int64_t(150));
        QCOMPARE(c.sessions, int64_t(3));
        for (const int64_t n : {c.valid_lists, c.rejected_lists, c.rebuilds, c.drift_checks,
                                c.layout_switches, c.policy_changes})
            QVERIFY(n > 0);
        QVERIFY(r.rss_after_warmup > 0 && r.peak_rss >= r.rss_last);
    }

    void checks_catch_a_broken_mirror() {
        Soak soak(small(), tiny_model());
        QCOMPARE(soak.check(), std::string());
        soak.session().debug_desync_row(1, 2);
        QVERIFY(soak.check().starts_with("invariant "));
    }

    void checks_catch_an_edit_the_reference_did_not_see() {
        Soak soak(small(), tiny_model());
        QVERIFY(!soak.session().apply_now({Action{DeleteAction{1}, {2}}}).rejected);
        const std::string problem = soak.check();
        QVERIFY2(problem.starts_with("layer 2 holds"), problem.c_str());
    }

    void layout_switches_keep_the_hash_and_replay() {
        Soak soak(small(), tiny_model());
        for (int i = 0; i < 40; ++i) QVERIFY2(soak.step(), soak.failure().c_str());
        Session& s = soak.session();
        for (const CacheLayout layout :
             {CacheLayout::Indirection, CacheLayout::BatchSplice, CacheLayout::Contiguous}) {
            const uint64_t hash = s.state_hash();
            s.set_layout(layout);
            QVERIFY(s.state().cache().layout() == layout);
            QCOMPARE(s.state_hash(), hash);
            s.step();
        }
        const ReplayReport replayed = replay_trace(s.trace());
        QVERIFY(replayed.ok());
        QVERIFY(replayed.checked > 10);
    }
};

QTEST_APPLESS_MAIN(TestSoak)
#include "test_soak.moc"
