#include "core/session/replay.h"

#include "core/session/session.h"
#include "core/session/session_error.h"
#include "core/session/trace_events.h"

namespace kvw {

namespace {

class Replayer {
public:
    Replayer(Session& session, ReplayReport& report) : session_(session), report_(report) {}

    void run(const nlohmann::json& e, size_t line) {
        line_ = line;
        event_ = e.value("event", "");
        if (event_ == "start") {
            if (e.contains("prompt_ids"))
                session_.start_tokens(e.at("prompt_ids").get<std::vector<int32_t>>());
            else
                session_.start(e.at("prompt").get<std::string>());
        } else if (event_ == "inject") {
            bool rejected = false;
            try {
                session_.inject(actions_from_event(e, line));
            } catch (const ActionsRejected&) {
                rejected = true;
            }
            compare("rejected", e.value("rejected", false) ? "true" : "false",
                    rejected ? "true" : "false");
        } else if (event_ == "clear_injected") {
            session_.clear_injected();
        } else if (event_ == "tick") {
            if (e.value("forced", false))
                session_.step_forced(e.at("token").get<int32_t>());
            else
                session_.step();
            const nlohmann::json& token = session_.trace().events().back().at("token");
            compare("token", e.at("token").dump(), token.dump());
        } else if (event_ == "apply_now") {
            session_.apply_now(actions_from_event(e, line));
        } else if (event_ == "rebuild") {
            session_.rebuild();
        } else if (event_ == "drift") {
            compare("first_diverging_layer", e.at("first_diverging_layer").dump(),
                    std::to_string(session_.measure_drift().first_diverging_layer));
        } else if (event_ == "set_proposer") {
            session_.set_proposer(e.at("name").get<std::string>());
        } else if (event_ == "set_rope_policy") {
            const auto policy = parse_rope_policy(e.at("name").get<std::string>());
            if (!policy) throw TraceError("unknown rope policy", line);
            session_.set_rope_policy(*policy);
        } else if (event_ == "set_guard") {
            session_.set_guard(e.at("on").get<bool>());
        } else if (event_ == "desync") {
            session_.debug_desync_row(e.at("layer").get<int>(), e.at("row").get<int>());
        } else {
            throw TraceError("unknown event \"" + event_ + "\"", line);
        }
        if (e.contains("state_hash"))
            compare("state_hash", e.at("state_hash").get<std::string>(),
                    hash_hex(session_.state_hash()));
    }

private:
    void compare(const char* field, const std::string& expected, const std::string& actual) {
        ++report_.checked;
        if (expected != actual)
            report_.mismatches.push_back({line_, event_, field, expected, actual});
    }

    Session& session_;
    ReplayReport& report_;
    size_t line_ = 0;
    std::string event_;
};

}  // namespace

ReplayReport replay_trace(const Trace& trace, const std::optional<std::string>& model) {
    const auto& events = trace.events();
    if (events.empty()) throw TraceError("empty trace");
    SessionOptions options = options_from_header(events.front());
    if (model) options.model = *model;
    Session session(options);
    ReplayReport report;
    Replayer replayer(session, report);
    for (size_t i = 1; i < events.size(); ++i) {
        try {
            replayer.run(events[i], i + 1);
        } catch (const nlohmann::json::exception& e) {
            throw TraceError(e.what(), i + 1);
        }
        ++report.events;
    }
    return report;
}

}  // namespace kvw
