// A trace edited after it was recorded does not replay as identical: every key an event
// recorded is compared (tick, actions, result, invariants, tokens, state hash), a header of a
// version this build does not read is refused by name, a value of the wrong type is a typed
// error naming the line and key, events without state hashes are counted, and a fork cuts at
// the tick it counts rather than the one an event claims (ARCHITECTURE §7, §16).
#include <QtTest>

#include "core/model/model_loader.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "core/session/session_error.h"

using namespace kvw;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

// Six ticks of a sampled run with a pair-merge proposer, a delete injected before tick 3.
std::vector<nlohmann::json> recorded_events() {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.proposer = "pair-merge";
    o.sampling.temperature = 0.8f;
    o.sampling.seed = 7;
    Session s(o, tiny_model());
    s.start("the quick brown fox jumps over the lazy dog");
    s.step();
    s.step();
    s.inject({Action{DeleteAction{2}, {}}});
    for (int i = 0; i < 4; ++i) s.step();
    return s.trace().events();
}

Trace as_trace(const std::vector<nlohmann::json>& events) {
    std::string text;
    for (const nlohmann::json& e : events) text += e.dump() + "\n";
    return Trace::parse(text, "edited.ndjson");
}

// The index of the event of `name` that recorded tick `tick`.
size_t event_at(const std::vector<nlohmann::json>& events, const char* name, int64_t tick) {
    for (size_t i = 1; i < events.size(); ++i)
        if (events[i]["event"] == name && events[i]["tick"] == tick) return i;
    throw std::logic_error("no such event");
}

// The fields the replay of `events` found different.
std::vector<std::string> mismatched_fields(const std::vector<nlohmann::json>& events) {
    std::vector<std::string> fields;
    for (const ReplayMismatch& m : replay_trace(as_trace(events)).mismatches)
        fields.push_back(m.field);
    return fields;
}

}  // namespace

class TestTraceTampering : public QObject {
    Q_OBJECT

private slots:
    void the_recorded_trace_replays_identical() {
        const ReplayReport report = replay_trace(as_trace(recorded_events()));
        QVERIFY(report.ok());
        QCOMPARE(report.unhashed_events, size_t(0));
    }

    // Each edit alone: the replay names the field it changed, and only that one.
    void every_recorded_outcome_of_a_tick_is_compared() {
        const std::vector<nlohmann::json> original = recorded_events();
        const size_t t4 = event_at(original, "tick", 4);
        const std::vector<std::pair<const char*, std::function<void(nlohmann::json&)>>> edits = {
            {"tick", [](nlohmann::json& e) { e["tick"] = 9; }},
            {"token", [](nlohmann::json& e) { e["token"] = e["token"].get<int>() + 1; }},
            {"actions", [](nlohmann::json& e) { e["actions"] = nlohmann::json::array(); }},
            {"result", [](nlohmann::json& e) { e["result"]["actions_applied"] = 99; }},
            {"result", [](nlohmann::json& e) { e["result"]["aborted"] = true; }},
            {"invariants_pass", [](nlohmann::json& e) { e["invariants_pass"] = false; }},
            {"state_hash", [](nlohmann::json& e) { e["state_hash"] = "0123456789abcdef"; }},
        };
        for (const auto& [field, edit] : edits) {
            std::vector<nlohmann::json> events = original;
            edit(events[t4]);
            QCOMPARE(mismatched_fields(events), std::vector<std::string>{field});
        }
        // The tick of an inject and the rejection it recorded.
        std::vector<nlohmann::json> events = original;
        const size_t inject = event_at(original, "inject", 2);
        events[inject]["tick"] = 3;
        QCOMPARE(mismatched_fields(events), std::vector<std::string>{"tick"});
        events = original;
        events[inject]["rejected"] = true;
        QCOMPARE(mismatched_fields(events), std::vector<std::string>{"rejected"});
    }

    // Keys a trace of an older build did not record are not asked for.
    void keys_an_older_build_did_not_record_are_not_compared() {
        std::vector<nlohmann::json> events = recorded_events();
        for (nlohmann::json& e : events) {
            e.erase("invariants_pass");
            if (e.contains("result")) e["result"].erase("actions_applied");
        }
        QVERIFY(replay_trace(as_trace(events)).ok());
    }

    void an_unknown_version_is_refused_by_name() {
        std::vector<nlohmann::json> events = recorded_events();
        events.front()["kvw_trace"] = 99;
        try {
            replay_trace(as_trace(events));
            QFAIL("a version 99 trace was replayed");
        } catch (const TraceError& e) {
            QCOMPARE(e.line(), size_t(1));
            QVERIFY2(std::string(e.what()).find("kvw_trace 99") != std::string::npos, e.what());
        }
        events.front()["kvw_trace"] = "1";
        QVERIFY_THROWS_EXCEPTION(TraceError, replay_trace(as_trace(events)));
    }

    void events_without_state_hashes_are_counted() {
        std::vector<nlohmann::json> events = recorded_events();
        size_t stripped = 0;
        for (size_t i = 1; i < events.size(); ++i) stripped += events[i].erase("state_hash");
        QVERIFY(stripped >= 7);
        const ReplayReport report = replay_trace(as_trace(events));
        QVERIFY(report.ok());
        QCOMPARE(report.unhashed_events, stripped);
    }

    // "tick":"5" was a raw nlohmann type_error.302 out of fork's cut.
    void a_value_of_the_wrong_type_is_a_typed_error_naming_line_and_key() {
        std::vector<nlohmann::json> events = recorded_events();
        const size_t t5 = event_at(events, "tick", 5);
        events[t5]["tick"] = "5";
        const Trace trace = as_trace(events);
        ReplayReport report;
        try {
            session_from_trace(trace, events_through_tick(trace, 5), tiny_model(), report);
            QFAIL("a string tick was forked");
        } catch (const TraceError& e) {
            QCOMPARE(e.line(), t5 + 1);
            QVERIFY2(std::string(e.what()).find("\"tick\"") != std::string::npos ||
                         std::string(e.what()).find("tick is string") != std::string::npos,
                     e.what());
        }
        events = recorded_events();
        events[t5]["result"]["rejected"] = "no";
        try {
            events_through_tick(as_trace(events), 6);
            QFAIL("a string rejection was read");
        } catch (const TraceError& e) {
            QCOMPARE(e.line(), t5 + 1);
            QVERIFY2(std::string(e.what()).find("result.rejected") != std::string::npos, e.what());
        }
    }

    // The cut is the tick counted from the start (every accepted tick one more), so an edited
    // "tick" neither moves it nor hides: the replay of the cut finds the edit.
    void a_fork_cuts_by_the_counted_tick() {
        const std::vector<nlohmann::json> original = recorded_events();
        std::vector<nlohmann::json> events = original;
        const size_t t4 = event_at(original, "tick", 4);
        events[t4]["tick"] = 6;
        const Trace edited = as_trace(events);
        QCOMPARE(events_through_tick(edited, 4), t4 + 1);
        QCOMPARE(events_through_tick(edited, 6), events_through_tick(as_trace(original), 6));
        ReplayReport report;
        const auto forked =
            session_from_trace(edited, events_through_tick(edited, 4), tiny_model(), report);
        QCOMPARE(forked->tick(), int64_t(4));
        QCOMPARE(report.mismatches.size(), size_t(1));
        QCOMPARE(report.mismatches.front().field, std::string("tick"));
    }
};

QTEST_GUILESS_MAIN(TestTraceTampering)
#include "test_trace_tampering.moc"
