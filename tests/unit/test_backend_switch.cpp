// Switching the backend inside a session (Session::set_backend, command::SetBackend, issue 29
// item 4, ARCHITECTURE §18): the switch keeps the cached rows and the state hash, so drift
// then shows the numeric difference between the backends (`cpu` and `cpu:scalar` sum in
// different lane orders) and a rebuild recomputes the rows on the new one; an unknown backend
// changes nothing; the trace replays, undoes and clones onto the backend each part ran on.
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/backend/backend_registry.h"
#include "core/model/model_loader.h"
#include "core/script/script_error.h"
#include "core/script/script_parser.h"
#include "core/script/script_session_line.h"
#include "core/session/command/command_table.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "core/session/trace.h"
#include "tests/unit/decoding_fault.h"

using namespace kvw;

namespace {

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

// Teacher-forced, so that both backends see the same tokens whatever their last bits.
constexpr int32_t kTokens[] = {5, 9, 14, 3, 22, 7};

SessionOptions options_on(const std::string& backend) {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.backend = backend;
    o.capacity = 64;
    return o;
}

// A session on `backend` with a prompt and a few forced ticks.
std::unique_ptr<Session> run_on(const std::string& backend) {
    auto s = std::make_unique<Session>(options_on(backend), tiny_model());
    s->start("the quick brown fox");
    for (int32_t t : kTokens) s->step_forced(t);
    return s;
}

// The largest drift of any row's K or V in any layer.
float max_drift(const DriftReport& d) {
    float worst = 0.0f;
    for (const LayerDrift& l : d.layers)
        for (const std::vector<float>* values : {&l.k, &l.v})
            for (float x : *values) worst = std::max(worst, x);
    return worst;
}

// Every row's stored bytes, layer by layer.
std::vector<uint8_t> stored_rows(const Session& s) {
    std::vector<uint8_t> bytes;
    const StateManager& state = s.state();
    for (int l = 0; l < state.n_layers(); ++l)
        state.cache().append_stored_rows(l, 0, state.rows(l), bytes);
    return bytes;
}

bool all_invariants_pass(const Session& s) {
    for (const InvariantResult& r : s.state().check_invariants())
        if (!r.passed) return false;
    return s.frame()->all_invariants_pass();
}

// `cpu` runs the fastest kernel this CPU has; where that is the scalar one the two backends
// compute the same bits and there is no difference to see.
bool cpu_is_scalar() {
    std::string why;
    return !backend_available("cpu:avx2", why) && !backend_available("cpu:avx512", why);
}

}  // namespace

class TestBackendSwitch : public QObject {
    Q_OBJECT
private slots:
    void the_switch_keeps_the_rows_and_drift_shows_the_difference() {
        auto s = run_on("cpu");
        QCOMPARE(max_drift(s->measure_drift()), 0.0f);  // rows and recompute on one backend
        const uint64_t hash = s->state_hash();
        const auto records = s->state().ledger().size();
        const std::vector<uint8_t> rows = stored_rows(*s);
        const std::vector<int32_t> layer0 = s->state().tokens(0);

        s->set_backend("cpu:scalar");
        QCOMPARE(s->options().backend, std::string("cpu:scalar"));
        QCOMPARE(s->frame()->backend, std::string("cpu:scalar"));
        QCOMPARE(s->state_hash(), hash);
        QCOMPARE(s->state().ledger().size(), records);
        QCOMPARE(s->state().tokens(0), layer0);
        QVERIFY(stored_rows(*s) == rows);
        QVERIFY(all_invariants_pass(*s));
        const nlohmann::json& event = s->trace().events().back();
        QCOMPARE(event.at("event").get<std::string>(), std::string("set_backend"));
        QCOMPARE(event.at("name").get<std::string>(), std::string("cpu:scalar"));
        QCOMPARE(event.at("from").get<std::string>(), std::string("cpu"));
        QCOMPARE(event.at("rows").get<std::string>(), std::string("kept"));
        QCOMPARE(event.at("state_hash").get<std::string>(), hash_hex(hash));

        // The rows are cpu's, the recompute cpu:scalar's: they differ in the last bits only,
        // within the drift tolerance (no layer diverges).
        const DriftReport& drift = s->measure_drift();
        const float difference = max_drift(drift);
        if (cpu_is_scalar()) {
            QCOMPARE(difference, 0.0f);
        } else {
            QVERIFY2(difference > 0.0f && difference < 1e-4f,
                     qPrintable(QString::number(double(difference))));
            QCOMPARE(drift.first_diverging_layer, -1);
        }
        QVERIFY(all_invariants_pass(*s));

        // Rebuilt on cpu:scalar, the rows are those a session that ran on cpu:scalar from the
        // start rebuilds: the same mirror on the same backend.
        s->rebuild();
        QCOMPARE(max_drift(s->measure_drift()), 0.0f);
        QVERIFY(all_invariants_pass(*s));
        auto scalar = run_on("cpu:scalar");
        scalar->rebuild();
        QVERIFY(stored_rows(*s) == stored_rows(*scalar));
        QCOMPARE(rows != stored_rows(*s), !cpu_is_scalar());

        // Ticks after the switch run on the new backend: both sessions append the same row.
        s->step_forced(11);
        scalar->step_forced(11);
        QVERIFY(stored_rows(*s) == stored_rows(*scalar));
    }

    void an_unknown_backend_changes_nothing() {
        auto s = run_on("cpu");
        const uint64_t hash = s->state_hash();
        const size_t events = s->trace().events().size();
        try {
            s->set_backend("tpu");
            QFAIL("an unknown backend was taken");
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            QVERIFY2(test::mentions(what, "'tpu'") && test::mentions(what, "cpu:scalar") &&
                         test::mentions(what, "stays on cpu"),
                     e.what());
        }
        QCOMPARE(s->state_hash(), hash);
        QCOMPARE(s->trace().events().size(), events);
        QCOMPARE(s->options().backend, std::string("cpu"));
        QCOMPARE(s->frame()->backend, std::string("cpu"));
        s->step_forced(4);  // and it goes on
        QVERIFY(all_invariants_pass(*s));
    }

    // Replay, undo / redo and clone make the backend each part of the trace ran on.
    void the_trace_replays_on_the_backends_it_ran_on() {
        auto s = run_on("cpu");
        s->set_backend("cpu:scalar");
        s->measure_drift();
        s->step_forced(11);
        s->rebuild();
        s->step_forced(12);
        s->set_backend("cpu");  // rows of both backends now
        s->step_forced(13);

        ReplayReport report;
        const std::unique_ptr<Session> again =
            session_from_trace(s->trace(), s->trace().events().size(), tiny_model(), report);
        QVERIFY2(
            report.ok(),
            report.mismatches.empty()
                ? ""
                : qPrintable(QString::fromStdString(report.mismatches[0].field + " at line " +
                                                    std::to_string(report.mismatches[0].line))));
        QVERIFY(report.checked > 0);
        QCOMPARE(again->state_hash(), s->state_hash());
        QCOMPARE(again->options().backend, std::string("cpu"));
        QVERIFY(stored_rows(*again) == stored_rows(*s));

        const uint64_t last = s->state_hash();
        s->undo(2);  // the tick and the switch back
        QCOMPARE(s->options().backend, std::string("cpu:scalar"));
        QCOMPARE(s->frame()->backend, std::string("cpu:scalar"));
        const std::unique_ptr<Session> copy = s->clone();
        QCOMPARE(copy->options().backend, std::string("cpu:scalar"));
        s->step_forced(13);
        copy->step_forced(13);
        QCOMPARE(copy->state_hash(), s->state_hash());
        s->undo();
        s->set_backend("cpu");
        s->step_forced(13);
        QCOMPARE(s->state_hash(), last);
    }

    void a_malformed_event_names_the_line_and_the_key() {
        const command::SetBackend c{"cpu:scalar"};
        QCOMPARE(to_json(SessionCommand(c)),
                 (nlohmann::json{{"event", "set_backend"}, {"name", "cpu:scalar"}}));
        QVERIFY(decode_command(c.to_json(), 2, {}) == SessionCommand(c));
        std::string fault = test::decoding_fault({{"event", "set_backend"}});
        QVERIFY2(test::mentions(fault, "line 7") && test::mentions(fault, "\"name\""),
                 fault.c_str());
        fault = test::decoding_fault({{"event", "set_backend"}, {"name", 3}});
        QVERIFY2(test::mentions(fault, "line 7") && test::mentions(fault, "\"name\"") &&
                     test::mentions(fault, "string"),
                 fault.c_str());
    }

    void the_script_line_reads_back() {
        const Script script = parse_script("switch-backend cpu:scalar");
        QCOMPARE(script.commands.size(), size_t(1));
        QCOMPARE(int(script.commands[0].kind), int(ScriptCommandKind::Session));
        QVERIFY(script.commands[0].session == SessionCommand(command::SetBackend{"cpu:scalar"}));
        QCOMPARE(script_line(command::SetBackend{"cuda"}),
                 std::optional<std::string>("switch-backend cuda"));
        QCOMPARE(script_line(command::SetBackend{"two words"}), std::optional<std::string>());
        QCOMPARE(script_line(command::SetBackend{""}), std::optional<std::string>());
        QVERIFY_THROWS_EXCEPTION(ScriptError, parse_script("switch-backend"));
        QVERIFY_THROWS_EXCEPTION(ScriptError, parse_script("switch-backend cpu extra"));
    }
};

QTEST_GUILESS_MAIN(TestBackendSwitch)
#include "test_backend_switch.moc"
