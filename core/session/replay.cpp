#include "core/session/replay.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>

#include "core/backend/backend_registry.h"
#include "core/json/json_fields.h"
#include "core/session/command/backend_commands.h"
#include "core/session/command/command_table.h"
#include "core/session/session.h"
#include "core/session/session_checkpoint.h"
#include "core/session/session_error.h"
#include "core/session/trace_events.h"

namespace kvw {

namespace {

class Replayer {
public:
    Replayer(Session& session, ReplayReport& report, const std::string& file)
        : session_(session), report_(report), file_(file) {}

    // Every key is read through JsonFields; its faults become TraceErrors in replay_trace().
    void run(const nlohmann::json& recorded, size_t line) {
        line_ = line;
        const JsonFields e(recorded);
        event_ = e.get<std::string>("event");
        const bool switches = event_ == command::SetBackend::kEvent;
        const nlohmann::json event = switches ? on_replayed_backends(recorded) : recorded;
        // Compared below as any outcome; read first so that a tick or hash of another type is
        // the typed error it is (naming the key), not a mismatch of "5" against 5.
        (void)e.get_optional<int64_t>("tick");
        (void)e.get_optional<std::string>("state_hash");
        const size_t written_before = session_.trace().events().size();
        // nullopt: a refused list that does not read back changed nothing; nothing is repeated,
        // and no event is written to compare with.
        if (const std::optional<SessionCommand> command = decode_command(event, line, file_)) {
            try {
                apply_command(*command, session_);
            } catch (const ActionsRejected&) {
                // inject records its refusal, then throws: compared with the event below
            }
        }
        const auto& written = session_.trace().events();
        if (written.size() > written_before) compare_outcomes(event, written[written_before]);
        if (switches) {
            report_.recorded_backend = e.get<std::string>("name");
            report_.backend = session_.options().backend;
        }
    }

private:
    // A set_backend event as this replay repeats it: "auto" as recorded_backend() resolves it,
    // and a "from" naming the recorded backend in place of which the replay runs another (the
    // first switch of a replay told another backend) names that one.
    nlohmann::json on_replayed_backends(nlohmann::json event) const {
        const JsonFields e(event);
        event["name"] = recorded_backend(e.get<std::string>("name"));
        if (const auto from = e.get_optional<std::string>("from");
            from && *from == report_.recorded_backend)
            event["from"] = report_.backend;
        return event;
    }

    void compare(const std::string& field, const std::string& expected, const std::string& actual) {
        ++report_.checked;
        if (expected != actual)
            report_.mismatches.push_back({line_, event_, field, expected, actual});
    }

    // Every key the trace recorded for the event against the event the repeated command wrote:
    // the tick, the sampled tokens, the action list as applied, the tick's result, whether the
    // invariants passed, the state hash, whatever a later build adds. What
    // an older build did not record is not asked for (the comparison goes key by key through
    // objects); a state hash the trace lacks where this build writes one is counted
    // (ReplayReport::unhashed_events), and an older hash function's hashes are skipped.
    void compare_outcomes(const nlohmann::json& recorded, const nlohmann::json& replayed) {
        for (const auto& [key, value] : recorded.items()) {
            if (key == "event") continue;  // the command repeated: equal by construction
            // The ring's pointers are a record to grep (ARCHITECTURE §17) that follows the
            // header's decode block size, which traces from before block decoding give as N while
            // every tick decoded one token; the rows they point at are in the state hash.
            if (key == "ring") continue;
            if (key == "state_hash" && !report_.state_hashes_compared) continue;
            const auto again = replayed.find(key);
            compare(key, value.dump(),
                    again == replayed.end() ? "(absent)"
                    : holds(value, *again)  ? value.dump()
                                            : again->dump());
        }
        if (replayed.contains("state_hash") && !recorded.contains("state_hash"))
            ++report_.unhashed_events;
    }

    // Whether `replayed` holds everything `recorded` does: objects key by key (a key only the
    // replay wrote is a field added since the trace was recorded), anything else equal.
    static bool holds(const nlohmann::json& recorded, const nlohmann::json& replayed) {
        if (!recorded.is_object() || !replayed.is_object()) return recorded == replayed;
        for (const auto& [key, value] : recorded.items()) {
            const auto again = replayed.find(key);
            if (again == replayed.end() || !holds(value, *again)) return false;
        }
        return true;
    }

    Session& session_;
    ReplayReport& report_;
    const std::string& file_;
    size_t line_ = 0;
    std::string event_;
};

// A trace whose events lost their state hashes (edited by hand, or by a tool that dropped
// them) still replays, its tokens and results compared, but its states are not: say so.
void warn_unhashed(const ReplayReport& report, const std::string& source) {
    if (report.unhashed_events > 0)
        spdlog::warn("{}: {} event(s) carry no state hash: their states are not checked",
                     source.empty() ? "trace" : source, report.unhashed_events);
}

}  // namespace

void replay_event(Session& session, const nlohmann::json& event, size_t line,
                  const std::string& file, ReplayReport& report) {
    Replayer replayer(session, report, file);
    try {
        replayer.run(event, line);
    } catch (const JsonError& e) {
        throw TraceError(e.what(), line, file);
    }
    ++report.events;
}

void replay_events(Session& session, const Trace& trace, size_t first, size_t last,
                   ReplayReport& report) {
    const auto& events = trace.events();
    if (!events.empty() && !header_has_current_state_hashes(events.front()))
        report.state_hashes_compared = false;
    if (!events.empty() && report.backend.empty()) {
        report.recorded_backend = JsonFields(events.front()).get<std::string>("backend");
        report.backend = session.options().backend;
    }
    for (size_t i = std::max<size_t>(first, 1); i < std::min(last, events.size()); ++i)
        replay_event(session, events[i], trace.line_of(i), trace.source(), report);
}

namespace {

// Where the replay runs: the recorded backend, or the one it was told (ReplayTarget::backend).
// Of another numeric set, the recorded state hashes cannot be made again: they are not
// compared, and a warning names both (ARCHITECTURE §18.1).
void choose_backend(const Trace& trace, const std::optional<std::string>& told,
                    SessionOptions& options, ReplayReport& report) {
    report.recorded_backend = JsonFields(trace.events().front()).get<std::string>("backend");
    const std::string recorded = options.backend;
    std::string why;
    if (!told && !backend_available(recorded, why))
        throw std::invalid_argument(trace.source() + ": recorded on the backend " + recorded +
                                    ", which cannot run here (" + why +
                                    "): replay it on another (--backend NAME)");
    if (told) options.backend = resolve_backend(*told);
    report.backend = options.backend;
    // The numbers the recording machine computed (a header from before "numerics": as this
    // machine computes the recorded backend's)
    const std::string recorded_set =
        recorded_numerics(trace.events().front(), trace.source()).value_or(numeric_set(recorded));
    const std::string numerics = numeric_set(options.backend);
    if (recorded_set != numerics) {
        report.other_numerics = true;
        report.recorded_numerics = recorded_set;
        report.numerics = numerics;
        report.state_hashes_compared = false;
        spdlog::warn(
            "{}: recorded on {} ({} numbers), replayed on {} ({} numbers here): its state hashes "
            "are not compared, its tokens and other outcomes are",
            trace.source(), recorded, recorded_set, options.backend, numerics);
        return;
    }
    if (recorded == options.backend) return;
    spdlog::warn(
        "{}: recorded on {}, replayed on {}, of the same numeric set: its state hashes are "
        "compared, and differ where the two kernels sum in other lane orders",
        trace.source(), recorded, options.backend);
}

}  // namespace

std::unique_ptr<Session> session_replayed(const Trace& trace, const ReplayTarget& target,
                                          ReplayReport& report,
                                          const std::function<void(const Session&)>& after_event) {
    const auto& events = trace.events();
    if (events.empty()) throw TraceError("empty trace", 0, trace.source());
    SessionOptions options = options_from_header(events.front(), trace.source());
    const std::optional<std::string>& model = target.model;
    if (model && *model != options.model) {
        // Allowed (the same weights under another path, a quantised copy), but the recorded
        // hashes and tokens then hold only when the model computes the same numbers.
        spdlog::warn(
            "{}: recorded with the model {}, replayed with {}: expect mismatches unless "
            "they compute the same numbers",
            trace.source(), options.model, *model);
        options.model = *model;
    }
    choose_backend(trace, target.backend, options, report);
    if (!header_has_current_state_hashes(events.front())) {
        report.state_hashes_compared = false;
        spdlog::warn(
            "{}: written before the state hash became XXH64: its state hashes are not compared, "
            "its tokens and other outcomes are",
            trace.source());
    }
    auto session = std::make_unique<Session>(options);
    for (size_t i = 1; i < events.size(); ++i) {
        replay_event(*session, events[i], trace.line_of(i), trace.source(), report);
        if (after_event) after_event(*session);
    }
    warn_unhashed(report, trace.source());
    return session;
}

std::string hashes_not_compared(const ReplayReport& report) {
    if (report.state_hashes_compared) return "";
    if (report.other_numerics)
        return "not its state hashes: recorded on " + report.recorded_backend + " (" +
               report.recorded_numerics + " numbers), replayed on " + report.backend + " (" +
               report.numerics + " numbers here), which computes other numbers";
    return "not its FNV-1a state hashes, from before XXH64";
}

ReplayReport replay_trace(const Trace& trace, const ReplayTarget& target) {
    ReplayReport report;
    session_replayed(trace, target, report);
    return report;
}

std::unique_ptr<Session> session_from_trace(const Trace& trace, size_t events,
                                            std::shared_ptr<const Model> model,
                                            ReplayReport& report,
                                            const CheckpointStore* checkpoints) {
    if (trace.events().empty()) throw TraceError("empty trace", 0, trace.source());
    // Going back (undo, restore, fork) repeats commands whose log lines were written when they
    // ran: a second "rebuilt the cache" would say something happened that did not. Warnings
    // and errors still come through.
    const spdlog::level::level_enum level = spdlog::get_level();
    spdlog::set_level(std::max(level, spdlog::level::warn));
    struct RestoreLevel {
        spdlog::level::level_enum level;
        ~RestoreLevel() { spdlog::set_level(level); }
    } restore{level};
    const std::shared_ptr<const SessionCheckpoint> from =
        checkpoints ? checkpoints->nearest(trace, events) : nullptr;
    std::unique_ptr<Session> session =
        from ? from->restore(trace)
             : std::make_unique<Session>(
                   options_from_header(trace.events().front(), trace.source()), std::move(model));
    if (checkpoints) {
        session->checkpoints_ = *checkpoints;
        session->checkpoints_.keep_serving(trace, events);
    }
    replay_events(*session, trace, from ? from->events() : 1, events, report);
    warn_unhashed(report, trace.source());
    return session;
}

}  // namespace kvw
