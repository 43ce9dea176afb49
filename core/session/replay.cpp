#include "core/session/replay.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>

#include "core/json/json_fields.h"

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
    void run(const nlohmann::json& event, size_t line) {
        line_ = line;
        const JsonFields e(event);
        event_ = e.get<std::string>("event");
        // Compared below as any outcome; read first so that a tick or hash of another type is
        // the typed error it is (naming the key), not a mismatch of "5" against 5.
        (void)e.get_optional<int64_t>("tick");
        (void)e.get_optional<std::string>("state_hash");
        const size_t written_before = session_.trace().events().size();
        if (event_ == "start") {
            if (e.has("prompt_ids")) {  // start_tokens(): the ids as they were given
                std::vector<int32_t> ids;
                for (const nlohmann::json& id : e.array("prompt_ids"))
                    ids.push_back(json_as<int32_t>(id, "prompt_ids[]"));
                session_.start_tokens(ids);
            } else {
                session_.start(e.get<std::string>("prompt"));
            }
        } else if (event_ == "inject") {
            const std::optional<ActionList> actions =
                recorded_actions(event, line, e.get_or<bool>("rejected", false));
            try {
                if (actions) session_.inject(*actions);
            } catch (const ActionsRejected&) {
                // recorded as "rejected": compared with the event below
            }
            if (!actions)  // refused by the reader: the session wrote no event to compare with
                compare("rejected", e.get_or<bool>("rejected", false) ? "true" : "false", "true");
        } else if (event_ == "clear_injected") {
            session_.clear_injected();
        } else if (event_ == "tick") {
            // A block tick (ARCHITECTURE §17) records its whole frame under "tokens"; a tick
            // without it decoded one token, whatever the ring's frame: traces recorded before
            // block decoding have frames > 1 and single-token ticks.
            std::vector<int32_t> frame;
            if (e.has("tokens"))
                for (const nlohmann::json& t : e.array("tokens"))
                    frame.push_back(json_as<int32_t>(t, "tokens[]"));
            const bool forced = e.get_or<bool>("forced", false);
            if (forced && !frame.empty())
                session_.step_forced(frame);
            else if (forced)
                session_.step_forced(e.get<int32_t>("token"));
            else if (e.has("tokens"))
                session_.step();
            else
                session_.step_one_token();
        } else if (event_ == "apply_now") {
            const bool refused =
                e.has("result") && e.object("result").get_or<bool>("rejected", false);
            if (const std::optional<ActionList> actions = recorded_actions(event, line, refused))
                session_.apply_now(*actions);
        } else if (event_ == "rebuild") {
            session_.rebuild();
        } else if (event_ == "drift") {
            session_.measure_drift();
        } else if (event_ == "set_proposer") {
            session_.set_proposer(e.get<std::string>("name"));
        } else if (event_ == "set_policy_options") {
            session_.set_policy_options(policy_options_from_json(e.object("policy")));
        } else if (event_ == "set_rope_policy") {
            const auto policy = parse_rope_policy(e.get<std::string>("name"));
            if (!policy) throw TraceError("unknown rope policy", line, file_);
            session_.set_rope_policy(*policy);
        } else if (event_ == "set_layout") {
            const auto layout = parse_cache_layout(e.at("name").get<std::string>());
            if (!layout) throw TraceError("unknown cache layout", line);
            // Older traces have no "capacity": the capacity stays.
            const int64_t capacity = e.get_or<int64_t>("capacity", 0);
            session_.set_layout(
                *layout,
                e.has("ring") ? ring_options_from_json(e.object("ring")) : session_.options().ring,
                capacity);
        } else if (event_ == "set_kv_types") {
            const auto k = parse_kv_type(e.get<std::string>("k_type"));
            const auto v = parse_kv_type(e.get<std::string>("v_type"));
            if (!k || !v) throw TraceError("unknown kv storage type", line, file_);
            session_.set_kv_types(*k, *v);
        } else if (event_ == "set_guard") {
            session_.set_guard(e.get<bool>("on"));
        } else if (event_ == "set_wlod") {
            session_.set_wlod(e.get<int>("k"), e.get<int64_t>("max"));
        } else if (event_ == "set_gist_net") {
            session_.set_gist_net(e.get<std::string>("path"));
        } else if (event_ == "desync") {
            session_.debug_desync_row(e.get<int>("layer"), e.get<int>("row"));
        } else {
            throw TraceError("unknown event \"" + event_ + "\"", line, file_);
        }
        const auto& written = session_.trace().events();
        if (written.size() > written_before) compare_outcomes(event, written[written_before]);
    }

private:
    // A list the session refused may hold what the JSON reader refuses as well (a negative
    // position, made in memory by a caller of Session): refused either way, it changed
    // nothing, so there is nothing to repeat. nullopt then.
    std::optional<ActionList> recorded_actions(const nlohmann::json& event, size_t line,
                                               bool refused) const {
        try {
            return actions_from_event(event, line, file_);
        } catch (const TraceError&) {
            if (refused) return std::nullopt;
            throw;
        }
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
            // header's frame size, which traces from before block decoding give as N while
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
    for (size_t i = std::max<size_t>(first, 1); i < std::min(last, events.size()); ++i)
        replay_event(session, events[i], trace.line_of(i), trace.source(), report);
}

std::unique_ptr<Session> session_replayed(const Trace& trace,
                                          const std::optional<std::string>& model,
                                          ReplayReport& report,
                                          const std::function<void(const Session&)>& after_event) {
    const auto& events = trace.events();
    if (events.empty()) throw TraceError("empty trace", 0, trace.source());
    SessionOptions options = options_from_header(events.front(), trace.source());
    if (model && *model != options.model) {
        // Allowed (the same weights under another path, a quantised copy), but the recorded
        // hashes and tokens then hold only when the model computes the same numbers.
        spdlog::warn(
            "{}: recorded with the model {}, replayed with {}: expect mismatches unless "
            "they compute the same numbers",
            trace.source(), options.model, *model);
        options.model = *model;
    }
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

ReplayReport replay_trace(const Trace& trace, const std::optional<std::string>& model) {
    ReplayReport report;
    session_replayed(trace, model, report);
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
