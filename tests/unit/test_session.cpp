// Session: tick transactions end to end, frames, traces and deterministic replay.
#include <QtTest>

#include <algorithm>

#include "core/backend/backend.h"
#include "core/model/model_loader.h"
#include "core/session/generator.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "core/session/session_error.h"
#include "core/session/trace_events.h"

using namespace kvw;

Q_DECLARE_METATYPE(kvw::StateHashKind)

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

SessionOptions options(std::string proposer = "manual", int capacity = 256) {
    SessionOptions o;
    o.model = "synthetic:tiny";  // what replay_trace() loads again: the model tiny_model() shares
    o.capacity = capacity;
    o.proposer = std::move(proposer);
    o.sampling.temperature = 0.8f;
    o.sampling.top_p = 0.95f;
    o.sampling.seed = 7;
    return o;
}

Action del(int pos) { return Action{DeleteAction{pos}, {}}; }
Action replace(int p1, int p2, std::vector<int32_t> ids, std::vector<int> layers = {}) {
    return Action{ReplacePairAction{p1, p2, std::move(ids)}, std::move(layers)};
}

const char* kPrompt = "the quick brown fox jumps over the lazy dog";

}  // namespace

class TestSession : public QObject {
    Q_OBJECT
private slots:
    // Without edits a session generates exactly what the plain append-only generator does.
    void ticks_without_edits_equal_the_generator() {
        Session s(options(), tiny_model());
        s.start(kPrompt);
        std::vector<int32_t> sampled;
        for (int i = 0; i < 12; ++i) {
            const TickResult r = s.step();
            QVERIFY(!r.rejected && !r.aborted);
            sampled.push_back(s.state().tokens(0).back());
        }
        QCOMPARE(s.tick(), int64_t(12));

        auto backend = make_cpu_backend(1);
        const Transformer engine(tiny_model(), *backend);
        Generator g(engine, options().sampling);
        g.prefill(tiny_model()->tokenizer.encode(kPrompt, true));
        for (int32_t expected : sampled) QCOMPARE(g.decode_next(), expected);
    }

    void frame_mirrors_the_state() {
        Session s(options(), tiny_model());
        s.start(kPrompt);
        s.step();
        s.inject({del(2)});
        s.step();
        const FramePtr f = s.frame();
        QCOMPARE(f->tick, int64_t(2));
        QCOMPARE(f->state_hash, s.state_hash());
        QCOMPARE(int(f->layers.size()), s.state().n_layers());
        for (int l = 0; l < s.state().n_layers(); ++l) {
            QCOMPARE(f->layers[size_t(l)].pos2ledger, s.state().layer_map(l).pos2ledger);
            QCOMPARE(f->layers[size_t(l)].rope_pos, s.state().layer_map(l).rope_pos);
            QVERIFY(f->layers[size_t(l)].drift.empty());
        }
        QCOMPARE(int64_t(f->ledger.size()), s.state().ledger().size());
        // The token sampled this tick entered at full brightness; older rows decayed.
        const LayerFrame& lit = f->layers[0];
        QCOMPARE(lit.brightness(size_t(lit.rows() - 1)), options().brightness.initial);
        float dimmest = options().brightness.initial;
        for (int r = 0; r + 1 < lit.rows(); ++r)
            dimmest = std::min(dimmest, lit.brightness(size_t(r)));
        QVERIFY(dimmest < options().brightness.initial);
        QCOMPARE(int(f->last_actions.size()), 2);  // the delete, then the sampled add
        QVERIFY(std::holds_alternative<DeleteAction>(f->last_actions[0].op));
        QCOMPARE(f->last_given_index, (std::vector<int>{0, 1}));
        QVERIFY(f->all_invariants_pass());
        for (const InvariantStatus& inv : f->invariants) QCOMPARE(inv.last_held_tick, int64_t(2));

        s.measure_drift();
        const FramePtr measured = s.frame();
        QVERIFY(measured->drift_measured);
        QCOMPARE(int(measured->layers[1].drift.size()), measured->layers[1].rows());
        // Deleting row 2 left the rows after it with K/V computed over the old context.
        QVERIFY(measured->layers[1].first_stale_row >= 2);
        s.rebuild();
        s.measure_drift();
        QVERIFY(s.frame()->max_drift <= 1e-5f);
    }

    void rejected_injection_changes_nothing() {
        Session s(options(), tiny_model());
        s.start(kPrompt);
        const uint64_t before = s.state_hash();
        const int rows = s.state().rows(0);
        try {
            s.inject({del(rows + 5)});
            QFAIL("an out-of-range delete was queued");
        } catch (const ActionsRejected& e) {
            QCOMPARE(int(e.errors().size()), 1);
            QCOMPARE(e.errors()[0].rule, ValidationRule::PositionOutOfRange);
        }
        QCOMPARE(s.state_hash(), before);
        QVERIFY(s.frame()->injected.empty());
        QVERIFY(!s.frame()->last_error.empty());
        QVERIFY_THROWS_EXCEPTION(SessionNotStarted, Session(options(), tiny_model()).step());
    }

    // A full cache rejects the tick's append before anything changes, brightness included.
    void full_cache_rejects_the_tick_and_changes_nothing() {
        const int capacity = int(tiny_model()->tokenizer.encode(kPrompt, true).size()) + 3;
        Session s(options("manual", capacity), tiny_model());
        s.start(kPrompt);
        while (s.state().rows(0) < capacity) QVERIFY(!s.step().rejected);
        const uint64_t before = s.state_hash();
        const int64_t tick = s.tick();
        const TickResult r = s.step();
        QVERIFY(r.rejected);
        QCOMPARE(r.rejections.front().rule, ValidationRule::CapacityExceeded);
        QCOMPARE(s.state_hash(), before);
        QCOMPARE(s.tick(), tick);
        QVERIFY(s.frame()->last_error.find("rejected") != std::string::npos);
    }

    // "▁" and "water" appended apart are the only mergeable pair: pair-merge folds them into
    // "▁water" at the next tick, next to the token that tick samples.
    void pair_merge_compacts_while_generating() {
        Session s(options("pair-merge"), tiny_model());
        s.start(kPrompt);
        const auto& pieces = tiny_model()->tokenizer.vocabulary().pieces;
        auto id = [&](const std::string& piece) {
            return int32_t(std::find(pieces.begin(), pieces.end(), piece) - pieces.begin());
        };
        const int32_t space = id("\xE2\x96\x81"), water = id("water"),
                      merged = id("\xE2\x96\x81water");
        QVERIFY(merged < int32_t(pieces.size()));
        s.apply_now({Action{AddAction{space}, {}}, Action{AddAction{water}, {}}});
        const int rows = s.state().rows(0);
        QVERIFY(!s.step().rejected);
        const FramePtr f = s.frame();
        const ActionList& applied = f->last_actions;
        QCOMPARE(int(applied.size()), 2);
        QCOMPARE(applied[0], (Action{ReplacePairAction{rows - 2, rows - 1, {merged}}, {}}));
        QCOMPARE(s.state().rows(0), rows - 1 + 1);
        QCOMPARE(s.state().tokens(3)[size_t(rows - 2)], merged);
        QVERIFY(s.frame()->all_invariants_pass());
    }

    void set_rope_policy_rederives_phases() {
        Session s(options(), tiny_model());
        s.start(kPrompt);
        s.inject({del(1)});
        s.step();
        s.set_rope_policy(RopePolicy::Reindex);
        const LayerMap& map = s.state().layer_map(2);
        for (int r = 0; r < map.rows(); ++r) QCOMPARE(map.rope_pos[size_t(r)], r);
        s.measure_drift();
        QVERIFY(s.frame()->max_drift <= 1e-5f);
        QVERIFY(s.frame()->all_invariants_pass());
    }

    // Original phases are ledger ids, which outgrow the capacity once enough records came and
    // went; switching back to final_index gives every row its index again (found by the soak:
    // the phases were kept and the rope_policy invariant failed).
    void original_then_final_index_keeps_phases_in_range() {
        const int capacity = 24;
        Session s(options("manual", capacity), tiny_model());
        s.start("a b c d");
        while (s.state().ledger().size() <= capacity) {
            s.inject({del(1)});
            QVERIFY(!s.step().rejected);
        }
        s.set_rope_policy(RopePolicy::Original);
        QVERIFY(s.frame()->all_invariants_pass());
        s.set_rope_policy(RopePolicy::FinalIndex);
        QVERIFY(s.frame()->all_invariants_pass());
        for (int l = 0; l < s.state().n_layers(); ++l)
            for (int r = 0; r < s.state().rows(l); ++r)
                QCOMPARE(s.state().layer_map(l).rope_pos[size_t(r)], r);
        s.measure_drift();
        QVERIFY(s.frame()->max_drift <= 1e-5f);
    }

    // Lists made in memory may hold what the JSON reader refuses (a negative position); the
    // session refuses them, and the trace still replays.
    void refused_lists_the_reader_refuses_replay() {
        Session s(options(), tiny_model());
        s.start(kPrompt);
        QVERIFY_THROWS_EXCEPTION(ActionsRejected, s.inject({del(-3)}));
        QVERIFY(s.apply_now({del(-7), del(2)}).rejected);
        s.step();
        const ReplayReport r = replay_trace(Trace::parse(s.trace().to_ndjson()));
        QVERIFY(r.ok());
        QCOMPARE(r.events, size_t(4));
    }

    // Record a session with every kind of command, write it as NDJSON, read it back and replay.
    void trace_replays_to_the_same_hashes() {
        Session s(options("pair-merge"), tiny_model());
        s.start(kPrompt);
        s.step();
        s.inject({replace(3, 4, {100, 101})});
        s.step();
        QVERIFY_THROWS_EXCEPTION(ActionsRejected, s.inject({del(9999)}));
        s.apply_now({del(1), Action{AddAction{42}, {}}});
        s.inject({replace(2, 5, {7}, {1, 3})});
        s.step();
        s.measure_drift();
        s.set_proposer("manual");
        s.set_rope_policy(RopePolicy::Reindex);
        s.rebuild();
        for (int i = 0; i < 3; ++i) s.step();

        const Trace parsed = Trace::parse(s.trace().to_ndjson());
        QCOMPARE(parsed.events().size(), s.trace().events().size());
        const ReplayReport ok = replay_trace(parsed);
        for (const ReplayMismatch& m : ok.mismatches)
            qWarning("line %zu %s %s: %s vs %s", m.line, m.event.c_str(), m.field.c_str(),
                     m.expected.c_str(), m.actual.c_str());
        QVERIFY(ok.ok());
        QCOMPARE(ok.events, parsed.events().size() - 1);
        QVERIFY(ok.checked >= 12);

        // A different seed in the header: the first sampled token or hash differs somewhere.
        std::string text = s.trace().to_ndjson();
        const std::string seed = "\"seed\":7";
        text.replace(text.find(seed), seed.size(), "\"seed\":8");
        QVERIFY(!replay_trace(Trace::parse(text)).ok());
    }

    // A trace written before the state hash became XXH64 (no "state_hash" key in its header)
    // carries hashes no state of this build gives: replayed, they are not compared, its tokens
    // are. With the key, a changed hash is a mismatch.
    void an_older_hash_function_is_not_compared_but_tokens_are() {
        Session s(options("manual"), tiny_model());
        s.start(kPrompt);
        for (int i = 0; i < 3; ++i) s.step();
        nlohmann::json header = s.trace().events().front();
        QCOMPARE(header.value("state_hash", ""), std::string("xxh64-chunks-bsum-streams"));
        std::vector<nlohmann::json> events = s.trace().events();
        events.back()["state_hash"] = "0123456789abcdef";
        const auto ndjson = [&] {
            std::string text;
            for (const nlohmann::json& e : events) text += e.dump() + "\n";
            return Trace::parse(text);
        };
        const ReplayReport current = replay_trace(ndjson());
        QVERIFY(current.state_hashes_compared);
        QCOMPARE(current.mismatches.size(), size_t(1));
        QCOMPARE(current.mismatches.front().field, std::string("state_hash"));

        events.front().erase("state_hash");
        const ReplayReport older = replay_trace(ndjson());
        QVERIFY(!older.state_hashes_compared);
        QVERIFY(older.ok());
        QVERIFY(older.checked >= 3);  // the sampled tokens
        events.back()["token"] = events.back()["token"].get<int>() + 1;
        QVERIFY(!replay_trace(ndjson()).ok());
    }

    // A trace of an earlier kind of hash (header "xxh64": the stream hash written before the
    // digest of digests; "xxh64-chunks": every brightness value's bytes, written before the
    // brightness sums; "xxh64-chunks-bsum": each block's counts first, written before its rows
    // were read as streams) replays with its hashes compared: the replaying session hashes as
    // the trace did.
    void a_trace_of_an_earlier_hash_replays_with_its_hashes_compared_data() {
        QTest::addColumn<StateHashKind>("kind");
        QTest::addColumn<QString>("name");
        QTest::newRow("stream") << StateHashKind::Stream << "xxh64";
        QTest::newRow("brightness bytes")
            << StateHashKind::ChunkDigestBrightnessBytes << "xxh64-chunks";
        QTest::newRow("block heads") << StateHashKind::ChunkDigest << "xxh64-chunks-bsum";
    }
    void a_trace_of_an_earlier_hash_replays_with_its_hashes_compared() {
        QFETCH(StateHashKind, kind);
        QFETCH(QString, name);
        SessionOptions o = options("manual");
        o.state_hash = kind;
        Session s(o, tiny_model());
        s.start(kPrompt);
        for (int i = 0; i < 3; ++i) s.step();
        s.apply_now({Action{DeleteAction{2}, {}}});
        QCOMPARE(s.trace().events().front().value("state_hash", ""), name.toStdString());
        QVERIFY(s.state_hash() != s.state().state_hash());  // the two kinds differ
        const ReplayReport again = replay_trace(s.trace());
        QVERIFY(again.state_hashes_compared);
        QVERIFY(again.ok());
        std::string text = s.trace().to_ndjson();
        const std::string last = hash_hex(s.state_hash());
        text.replace(text.rfind(last), last.size(), "0123456789abcdef");
        const ReplayReport changed = replay_trace(Trace::parse(text));
        QCOMPARE(changed.mismatches.size(), size_t(1));
        QCOMPARE(changed.mismatches.front().field, std::string("state_hash"));
    }

    // --guard full adds the comparison of the incremental state digest and invariants with
    // their from-scratch references to the invariants ("incremental_state"), and the trace
    // keeps the setting for its replay; without it there is no such invariant.
    void guard_full_compares_the_incremental_state_after_every_command() {
        SessionOptions o = options("h2o");
        o.policy.budget.sink = 2;
        o.policy.budget.budget = 4;
        o.policy.budget.window = 2;
        o.guard_full = true;
        Session s(o, tiny_model());
        s.start(kPrompt);
        for (int i = 0; i < 4; ++i) s.step();  // h2o deletes rows every tick
        const auto find = [](const Frame& f) {
            return std::find_if(
                f.invariants.begin(), f.invariants.end(),
                [](const InvariantStatus& i) { return i.name == "incremental_state"; });
        };
        const FramePtr f = s.frame();
        QVERIFY(find(*f) != f->invariants.end());
        QVERIFY(find(*f)->passed);
        QCOMPARE(s.trace().events().front().value("guard_full", false), true);
        QVERIFY(replay_trace(s.trace()).ok());
        QVERIFY(options_from_header(s.trace().events().front()).guard_full);
        Session plain(options("manual"), tiny_model());
        plain.start(kPrompt);
        const FramePtr p = plain.frame();
        QVERIFY(find(*p) == p->invariants.end());
    }

    void malformed_trace_names_the_line() {
        try {
            Trace::parse("{\"kvw_trace\":1}\n{\"event\":\"tick\"\n");
            QFAIL("parsed");
        } catch (const TraceError& e) {
            QCOMPARE(e.line(), size_t(2));
        }
        QVERIFY_THROWS_EXCEPTION(TraceError, Trace::parse("{\"event\":\"start\"}\n"));
    }
};

QTEST_GUILESS_MAIN(TestSession)
#include "test_session.moc"
