// The default backend and replays across backends (issue 30 "The decision", ARCHITECTURE §18.1):
// `auto` is the fastest backend here (`cpu:fast` on a CPU with AVX2 and no accelerator), a trace
// names the backend it ran on, never "auto"; a trace recorded on `cpu:fast` with quantised
// weights replays on `cpu:fast` with its state hashes compared, and on `cpu` (other numerics)
// it compares its tokens instead, passing exactly when the reference samples the same tokens;
// a trace written before `auto` was resolved ("auto" in it) replays as it did, on `cpu` here.
#include <QtTest>

#include <QTemporaryDir>

#include <fstream>

#include "core/backend/backend_registry.h"
#include "core/backend/cpu/fast_cpu_backend.h"
#include "core/model/builtin_models.h"
#include "core/model/gguf_file.h"
#include "core/model/gguf_requantize.h"
#include "core/model/mapped_file.h"
#include "core/model/model_loader.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "core/session/trace_events.h"

using namespace kvw;

namespace {

bool cpu_runs_fast_set() {
    std::string why;
    return FastCpuBackend::available(why);
}

constexpr const char* kNoFastSet = "this CPU lacks AVX2: auto is cpu here";

std::shared_ptr<const Model> tiny_model() {
    static std::shared_ptr<const Model> model = load_model("synthetic:tiny");
    return model;
}

// The embedded model with its matrices re-encoded as Q8_0 (cpu:fast rounds x to int8 for
// them), written where a trace can name it.
class QuantisedModel {
public:
    QuantisedModel() {
        const GgufFile file(map_file(find_builtin_model("default").string()));
        const std::vector<uint8_t> bytes = requantize_gguf(file, GgufType::Q8_0);
        path_ = dir_.filePath("default-q8_0.gguf").toStdString();
        std::ofstream(path_, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        model_ = load_model(path_);
    }
    const std::string& path() const { return path_; }
    const std::shared_ptr<const Model>& model() const { return model_; }

private:
    QTemporaryDir dir_;
    std::string path_;
    std::shared_ptr<const Model> model_;
};

SessionOptions options_on(const std::string& model, const std::string& backend) {
    SessionOptions o;
    o.model = model;
    o.backend = backend;
    o.capacity = 96;
    o.sampling.temperature = 0.8f;
    o.sampling.seed = 11;
    return o;
}

// A prompt, ticks, a delete and a rebuild, more ticks: the trace's events. The ticks sample, or
// with `forced` take the tokens given, which any backend then takes too.
std::vector<nlohmann::json> run_on(const QuantisedModel& q, const std::string& backend,
                                   bool forced = false) {
    Session s(options_on(q.path(), backend), q.model());
    s.start("And God said, Let there be light: and there was light.");
    const auto tick = [&](int32_t token) {
        if (forced)
            s.step_forced(token);
        else
            s.step();
    };
    for (int32_t token : {40, 41, 42, 43, 44, 45}) tick(token);
    s.apply_now({Action{DeleteAction{3}, {}}});
    s.rebuild();
    for (int32_t token : {46, 47, 48, 49, 50, 51}) tick(token);
    return s.trace().events();
}

Trace as_trace(const std::vector<nlohmann::json>& events) {
    std::string text;
    for (const nlohmann::json& e : events) text += e.dump() + "\n";
    return Trace::parse(text, "recorded.ndjson");
}

// Index and token of every tick.
std::vector<std::pair<size_t, int64_t>> tick_tokens(const std::vector<nlohmann::json>& events) {
    std::vector<std::pair<size_t, int64_t>> tokens;
    for (size_t i = 1; i < events.size(); ++i)
        if (events[i]["event"] == "tick") tokens.emplace_back(i, events[i]["token"].get<int64_t>());
    return tokens;
}

bool has_field(const ReplayReport& report, const std::string& field, size_t line = 0) {
    for (const ReplayMismatch& m : report.mismatches)
        if (m.field == field && (line == 0 || m.line == line)) return true;
    return false;
}

QString first_mismatch(const ReplayReport& report) {
    if (report.mismatches.empty()) return {};
    const ReplayMismatch& m = report.mismatches.front();
    return QString::fromStdString("line " + std::to_string(m.line) + " " + m.event + " " + m.field +
                                  ": " + m.expected + " -> " + m.actual);
}

}  // namespace

class TestReplayBackends : public QObject {
    Q_OBJECT
private slots:
    void auto_is_the_fast_set_without_an_accelerator() {
        if (!cpu_runs_fast_set()) QSKIP(kNoFastSet);
        std::string reasons;
        QVERIFY(!usable_accelerator(reasons));  // no accelerator is registered in unit tests
        QCOMPARE(resolve_backend("auto"), std::string("cpu:fast"));
        QCOMPARE(std::string(create_backend("auto")->name()), std::string("cpu:fast"));
        for (const char* name : {"cpu", "cpu:scalar", "cpu:fast", "cuda"})
            QCOMPARE(resolve_backend(name), std::string(name));
    }

    void numeric_sets() {
        for (const char* name : {"cpu", "cpu:avx512", "cpu:avx2", "cpu:scalar"})
            QCOMPARE(numeric_set(name), numeric_set("cpu"));
        QVERIFY(numeric_set("cpu:fast") != numeric_set("cpu"));
        QVERIFY(numeric_set("cuda") != numeric_set("cpu"));
        QVERIFY(numeric_set("cuda") != numeric_set("cpu:fast"));
    }

    // The header and a set_backend event name the backend "auto" resolved to.
    void a_trace_names_the_backend_it_ran_on() {
        if (!cpu_runs_fast_set()) QSKIP(kNoFastSet);
        Session s(options_on("synthetic:tiny", "auto"), tiny_model());
        QCOMPARE(s.options().backend, std::string("cpu:fast"));
        QCOMPARE(s.trace().events().front().at("backend").get<std::string>(),
                 std::string("cpu:fast"));
        s.start("the quick brown fox");
        s.step();
        s.set_backend("cpu");
        s.step();
        s.set_backend("auto");
        QCOMPARE(s.frame()->backend, std::string("cpu:fast"));
        const nlohmann::json& event = s.trace().events().back();
        QCOMPARE(event.at("name").get<std::string>(), std::string("cpu:fast"));
        QCOMPARE(event.at("from").get<std::string>(), std::string("cpu"));
        s.step();

        const ReplayReport report = replay_trace(s.trace());
        QVERIFY2(report.ok(), qPrintable(first_mismatch(report)));
        QVERIFY(report.state_hashes_compared);
        QVERIFY(!report.other_numerics);
        QCOMPARE(report.backend, std::string("cpu:fast"));
    }

    void a_fast_trace_replays_on_the_fast_set_with_its_hashes() {
        if (!cpu_runs_fast_set()) QSKIP(kNoFastSet);
        const QuantisedModel q;
        const std::vector<nlohmann::json> fast = run_on(q, "cpu:fast");
        QCOMPARE(fast.front().at("backend").get<std::string>(), std::string("cpu:fast"));

        const ReplayReport report = replay_trace(as_trace(fast));
        QVERIFY2(report.ok(), qPrintable(first_mismatch(report)));
        QVERIFY(report.state_hashes_compared);
        QVERIFY(!report.other_numerics);
        QVERIFY(report.checked > report.events);

        // The hashes are compared: one altered is found.
        std::vector<nlohmann::json> altered = fast;
        const size_t tick = tick_tokens(fast).at(3).first;
        altered[tick]["state_hash"] = "0000000000000000";
        QVERIFY(has_field(replay_trace(as_trace(altered)), "state_hash", tick + 1));
    }

    // The header records the numbers as the recording machine computed them: a trace of
    // `cpu:fast` from a machine whose fast set sums otherwise (BF16 on AMX tiles and scores in
    // halves, or not) replays
    // here with its tokens compared and its hashes not, the message naming both sets; a header
    // from before "numerics" is taken as this machine's.
    void a_fast_trace_from_a_machine_of_other_numerics_compares_tokens() {
        if (!cpu_runs_fast_set()) QSKIP(kNoFastSet);
        const QuantisedModel q;
        std::vector<nlohmann::json> fast = run_on(q, "cpu:fast");
        const std::string here = numeric_set("cpu:fast");
        QCOMPARE(fast.front().at("numerics").get<std::string>(), here);
        const std::string elsewhere = here == "cpu:fast" ? "cpu:fast+tdpbf16ps" : "cpu:fast";
        fast.front()["numerics"] = elsewhere;
        const ReplayReport report = replay_trace(as_trace(fast));
        QVERIFY2(report.ok(), qPrintable(first_mismatch(report)));
        QVERIFY(report.other_numerics);
        QVERIFY(!report.state_hashes_compared);
        QCOMPARE(report.backend, std::string("cpu:fast"));
        QVERIFY(report.checked > report.events);
        const std::string why = hashes_not_compared(report);
        QVERIFY2(why.find(elsewhere + " numbers") != std::string::npos &&
                     why.find(here + " numbers here") != std::string::npos,
                 why.c_str());

        fast.front().erase("numerics");
        const ReplayReport old = replay_trace(as_trace(fast));
        QVERIFY2(old.ok(), qPrintable(first_mismatch(old)));
        QVERIFY(!old.other_numerics);
        QVERIFY(old.state_hashes_compared);
    }

    // On `cpu` the recorded hashes cannot hold (checked: the reference's own run hashes
    // otherwise); the replay compares tokens: it passes with the tokens forced, and with them
    // sampled exactly when the reference samples the tokens cpu:fast did.
    void a_fast_trace_replays_on_the_reference_by_its_tokens() {
        if (!cpu_runs_fast_set()) QSKIP(kNoFastSet);
        const QuantisedModel q;
        const std::vector<nlohmann::json> fast = run_on(q, "cpu:fast");
        const std::vector<nlohmann::json> reference = run_on(q, "cpu");
        QVERIFY2(fast[1].at("state_hash") != reference[1].at("state_hash"),
                 "the prefill hashes alike on both sets: nothing to tell apart");

        ReplayTarget on_cpu;
        on_cpu.backend = "cpu";
        const ReplayReport report = replay_trace(as_trace(fast), on_cpu);
        QVERIFY(report.other_numerics);
        QVERIFY(!report.state_hashes_compared);
        QCOMPARE(report.recorded_backend, std::string("cpu:fast"));
        QCOMPARE(report.backend, std::string("cpu"));
        QVERIFY(report.checked > report.events);
        QVERIFY2(!has_field(report, "state_hash"), qPrintable(first_mismatch(report)));

        const ReplayReport forced = replay_trace(as_trace(run_on(q, "cpu:fast", true)), on_cpu);
        QVERIFY2(forced.ok(), qPrintable(first_mismatch(forced)));
        QVERIFY(forced.other_numerics);

        const auto fast_tokens = tick_tokens(fast);
        const auto reference_tokens = tick_tokens(reference);
        QCOMPARE(fast_tokens.size(), reference_tokens.size());
        size_t first_other = 0;  // the line of the first tick the reference samples otherwise
        for (size_t i = 0; i < fast_tokens.size() && first_other == 0; ++i)
            if (fast_tokens[i].second != reference_tokens[i].second)
                first_other = fast_tokens[i].first + 1;
        qInfo("cpu samples %s cpu:fast", first_other ? "other tokens than" : "the tokens of");
        QCOMPARE(report.ok(), first_other == 0);
        if (first_other) QVERIFY(has_field(report, "token", first_other));

        // A token the reference would not sample, written into the first tick: found by token.
        std::vector<nlohmann::json> altered = fast;
        const auto [first_tick, recorded] = fast_tokens.front();
        int64_t other = recorded + 1;
        while (other == reference_tokens.front().second) ++other;
        altered[first_tick]["token"] = other;
        const ReplayReport tampered = replay_trace(as_trace(altered), on_cpu);
        QVERIFY(has_field(tampered, "token", first_tick + 1));
        QVERIFY(!has_field(tampered, "state_hash"));
    }

    // Replayed on another backend, the first switch's "from" is the backend the replay ran on.
    void a_switch_replays_from_the_backend_the_replay_runs_on() {
        if (!cpu_runs_fast_set()) QSKIP(kNoFastSet);
        Session s(options_on("synthetic:tiny", "cpu:fast"), tiny_model());
        s.start("the quick brown fox");
        s.step_forced(5);
        s.set_backend("cpu:scalar");
        s.step_forced(9);
        s.set_backend("cpu:fast");
        s.step_forced(14);

        ReplayTarget on_cpu;
        on_cpu.backend = "cpu";
        const ReplayReport report = replay_trace(as_trace(s.trace().events()), on_cpu);
        QVERIFY2(report.ok(), qPrintable(first_mismatch(report)));
        QVERIFY(report.other_numerics);
        QCOMPARE(report.recorded_backend, std::string("cpu:fast"));
        QCOMPARE(report.backend, std::string("cpu:fast"));  // the last switch's
    }

    // A build before this one wrote "auto" where it ran on the first usable accelerator, else
    // `cpu`: such a trace replays there with its hashes compared, on the quantised model too,
    // where `cpu:fast` (today's auto) would hash otherwise.
    void a_trace_that_says_auto_replays_as_it_did() {
        const QuantisedModel q;
        Session s(options_on(q.path(), "cpu"), q.model());
        s.start("In the beginning God created the heaven and the earth.");
        s.step();
        s.set_backend("cpu:scalar");
        s.step();
        s.set_backend("cpu");
        s.step();
        std::vector<nlohmann::json> events = s.trace().events();
        events[0]["backend"] = "auto";
        size_t switches = 0;
        for (nlohmann::json& e : events) {
            if (e["event"] != "set_backend") continue;
            if (e["from"] == "cpu") e["from"] = "auto";
            if (e["name"] == "cpu") e["name"] = "auto";
            ++switches;
        }
        QCOMPARE(switches, size_t(2));

        ReplayReport report;
        const std::unique_ptr<Session> again = session_replayed(as_trace(events), {}, report);
        QVERIFY2(report.ok(), qPrintable(first_mismatch(report)));
        QVERIFY(report.state_hashes_compared);
        QVERIFY(!report.other_numerics);
        QCOMPARE(again->options().backend, std::string("cpu"));
        QCOMPARE(again->state_hash(), s.state_hash());
    }

    void a_backend_this_machine_lacks_is_named_with_the_way_out() {
        Session s(options_on("synthetic:tiny", "cpu"), tiny_model());
        s.start("the quick brown fox");
        s.step_forced(5);
        std::vector<nlohmann::json> events = s.trace().events();
        events[0]["backend"] = "tpu";  // as a tpu machine would record it
        events[0]["numerics"] = "tpu";
        try {
            replay_trace(as_trace(events));
            QFAIL("a trace recorded on an unknown backend replayed");
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("tpu") != std::string::npos &&
                         what.find("--backend") != std::string::npos,
                     e.what());
        }
        ReplayTarget on_cpu;
        on_cpu.backend = "cpu";
        const ReplayReport report = replay_trace(as_trace(events), on_cpu);
        QVERIFY2(report.ok(), qPrintable(first_mismatch(report)));
        QVERIFY(report.other_numerics);  // a tpu's numbers are not the reference's
    }
};

QTEST_GUILESS_MAIN(TestReplayBackends)
#include "test_replay_backends.moc"
