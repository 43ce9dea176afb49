#include "core/session/trace_events.h"

#include "core/state/action_json.h"

namespace kvw {

nlohmann::json trace_header(const SessionOptions& o) {
    return {{"kvw_trace", 1},
            {"model", o.model},
            {"backend", o.backend},
            {"capacity", o.capacity},
            {"rope_policy", rope_policy_name(o.rope_policy)},
            {"layout", cache_layout_name(o.layout)},
            {"proposer", o.proposer},
            {"guard", o.guard},
            {"sampling",
             {{"temperature", o.sampling.temperature},
              {"top_k", o.sampling.top_k},
              {"top_p", o.sampling.top_p},
              {"seed", o.sampling.seed}}},
            {"brightness",
             {{"decay", o.brightness.decay},
              {"boost", o.brightness.boost},
              {"initial", o.brightness.initial},
              {"max", o.brightness.max}}}};
}

SessionOptions options_from_header(const nlohmann::json& h) {
    SessionOptions o;
    try {
        o.model = h.at("model").get<std::string>();
        o.backend = h.at("backend").get<std::string>();
        o.capacity = h.at("capacity").get<int>();
        const auto policy = parse_rope_policy(h.at("rope_policy").get<std::string>());
        if (!policy) throw TraceError("header: unknown rope_policy", 1);
        o.rope_policy = *policy;
        const auto layout = parse_cache_layout(h.at("layout").get<std::string>());
        if (!layout) throw TraceError("header: unknown layout", 1);
        o.layout = *layout;
        o.proposer = h.at("proposer").get<std::string>();
        o.guard = h.at("guard").get<bool>();
        const nlohmann::json& s = h.at("sampling");
        o.sampling.temperature = s.at("temperature").get<float>();
        o.sampling.top_k = s.at("top_k").get<int>();
        o.sampling.top_p = s.at("top_p").get<float>();
        o.sampling.seed = s.at("seed").get<uint64_t>();
        const nlohmann::json& b = h.at("brightness");
        o.brightness.decay = b.at("decay").get<float>();
        o.brightness.boost = b.at("boost").get<float>();
        o.brightness.initial = b.at("initial").get<float>();
        o.brightness.max = b.at("max").get<float>();
    } catch (const nlohmann::json::exception& e) {
        throw TraceError(std::string("header: ") + e.what(), 1);
    }
    return o;
}

nlohmann::json tick_result_json(const TickResult& r) {
    nlohmann::json rejections = nlohmann::json::array();
    for (const ValidationError& e : r.rejections) rejections.push_back(e.message);
    return {{"rejected", r.rejected},
            {"rejections", rejections},
            {"aborted", r.aborted},
            {"failed_action", r.failed_action},
            {"failed_primitive", r.failed_primitive},
            {"abort_reason", r.abort_reason},
            {"rebuilt", r.rebuilt},
            {"actions_applied", r.actions_applied}};
}

nlohmann::json actions_json(const ActionList& actions) {
    return nlohmann::json::parse(to_json(actions));
}

ActionList actions_from_event(const nlohmann::json& event, size_t line) {
    if (!event.contains("actions")) throw TraceError("event has no \"actions\"", line);
    try {
        return parse_action_list(event.at("actions").dump());
    } catch (const ActionParseError& e) {
        throw TraceError(e.what(), line);
    }
}

}  // namespace kvw
