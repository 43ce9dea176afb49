#include "core/session/trace_events.h"

#include <optional>

#include "core/backend/backend_registry.h"
#include "core/json/json_fields.h"
#include "core/names/enum_names.h"
#include "core/state/action_json.h"

namespace kvw {

namespace {

KvType kv_type_of(const std::string& name, const char* key, const std::string& file) {
    const std::optional<KvType> t = parse_kv_type(name);
    if (!t)
        throw TraceError(std::string("header: ") + key + " \"" + name + "\" is not one of " +
                             names_in(kKvTypeNames, "|"),
                         1, file);
    return *t;
}

}  // namespace

nlohmann::json trace_header(const SessionOptions& o) {
    nlohmann::json h = {{"kvw_trace", kTraceVersion},
                        {"state_hash", state_hash_name(o.state_hash)},
                        {"model", o.model},
                        {"backend", o.backend},
                        // the backend's numbers as this machine computes them (numeric_set): a
                        // replay elsewhere compares state hashes only where it computes the same
                        {"numerics", numeric_set(o.backend)},
                        {"capacity", o.capacity},
                        {"rope_policy", rope_policy_name(o.rope_policy)},
                        {"layout", cache_layout_name(o.layout)},
                        {"k_type", kv_type_name(o.k_type)},
                        {"v_type", kv_type_name(o.v_type)},
                        {"proposer", o.proposer},
                        {"policy", policy_options_json(o.policy)},
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
    if (o.layout == CacheLayout::Ring) h["ring"] = ring_options_json(o.ring);
    // wLOD regenerates the cache every tick, so a replay needs its settings; absent: off.
    if (o.wlod_k > 0)
        h["wlod"] = {{"k", o.wlod_k},
                     {"max", o.wlod_max},
                     {"full_recompute_below", o.wlod_full_recompute_below}};
    if (!o.gist_net.empty()) h["gist_net"] = o.gist_net;
    if (o.guard_full) h["guard_full"] = true;  // absent: off (written before it existed)
    // Absent: the whole tick was refused, as traces written before the rule ran.
    if (o.invalid_proposals == InvalidProposals::Drop) h["invalid_proposals"] = "drop";
    return h;
}

namespace {

constexpr EnumName<StateHashKind> kStateHashNames[] = {
    {StateHashKind::BlockStreams, "xxh64-chunks-bsum-streams"},
    {StateHashKind::ChunkDigest, "xxh64-chunks-bsum"},
    {StateHashKind::ChunkDigestBrightnessBytes, "xxh64-chunks"},
    {StateHashKind::Stream, "xxh64"},
};

// The kind the header names; none for a trace written before the state hash became XXH64.
std::optional<StateHashKind> header_state_hash(const nlohmann::json& header) {
    const auto hash = header.find("state_hash");
    if (hash == header.end() || !hash->is_string()) return std::nullopt;
    return value_in(kStateHashNames, hash->get<std::string>());
}

}  // namespace

std::string recorded_backend(const std::string& name) {
    if (name != "auto") return name;
    std::string reasons;
    return usable_accelerator(reasons).value_or("cpu");
}

const char* state_hash_name(StateHashKind kind) { return name_in(kStateHashNames, kind); }

bool header_has_current_state_hashes(const nlohmann::json& header) {
    return header_state_hash(header).has_value();
}

std::optional<std::string> recorded_numerics(const nlohmann::json& header,
                                             const std::string& file) {
    try {
        const JsonFields h(header);
        if (!h.has("numerics")) return std::nullopt;
        return h.get<std::string>("numerics");
    } catch (const JsonError& e) {
        throw TraceError(std::string("header: ") + e.what(), 1, file);
    }
}

SessionOptions options_from_header(const nlohmann::json& header, const std::string& file) {
    SessionOptions o;
    try {
        const JsonFields h(header);
        const int64_t version = h.get<int64_t>("kvw_trace");
        if (version != kTraceVersion)
            throw TraceError("header: kvw_trace " + std::to_string(version) +
                                 " is a trace version this build does not read (it reads " +
                                 std::to_string(kTraceVersion) + ")",
                             1, file);
        o.model = h.get<std::string>("model");
        o.backend = recorded_backend(h.get<std::string>("backend"));
        o.capacity = h.get<int64_t>("capacity");  // the Session checks the range
        const auto policy = parse_rope_policy(h.get<std::string>("rope_policy"));
        if (!policy) throw TraceError("header: unknown rope_policy", 1, file);
        o.rope_policy = *policy;
        const auto layout = parse_cache_layout(h.get<std::string>("layout"));
        if (!layout) throw TraceError("header: unknown layout", 1, file);
        o.layout = *layout;
        if (h.has("ring")) o.ring = ring_options_from_json(h.object("ring"));
        o.k_type = kv_type_of(h.get_or<std::string>("k_type", "f32"), "k_type", file);
        o.v_type = kv_type_of(h.get_or<std::string>("v_type", "f32"), "v_type", file);
        o.proposer = h.get<std::string>("proposer");
        if (h.has("policy")) o.policy = policy_options_from_json(h.object("policy"));
        o.guard = h.get<bool>("guard");
        const JsonFields s = h.object("sampling");
        o.sampling.temperature = s.get<float>("temperature");
        o.sampling.top_k = s.get<int>("top_k");
        o.sampling.top_p = s.get<float>("top_p");
        o.sampling.seed = s.get<uint64_t>("seed");
        const JsonFields b = h.object("brightness");
        o.brightness.decay = b.get<float>("decay");
        o.brightness.boost = b.get<float>("boost");
        o.brightness.initial = b.get<float>("initial");
        o.brightness.max = b.get<float>("max");
        if (h.has("wlod")) {
            const JsonFields w = h.object("wlod");
            o.wlod_k = w.get<int>("k");
            o.wlod_max = w.get<int64_t>("max");
            o.wlod_full_recompute_below = w.get<double>("full_recompute_below");
        }
        o.gist_net = h.get_or<std::string>("gist_net", "");
        o.guard_full = h.get_or<bool>("guard_full", false);
        const std::string invalid = h.get_or<std::string>("invalid_proposals", "reject_tick");
        if (invalid != "drop" && invalid != "reject_tick")
            throw TraceError(
                "header: invalid_proposals \"" + invalid + "\" is not one of drop, reject_tick", 1,
                file);
        o.invalid_proposals =
            invalid == "drop" ? InvalidProposals::Drop : InvalidProposals::RejectTick;
        o.state_hash = header_state_hash(header).value_or(StateHashKind::ChunkDigest);
    } catch (const JsonError& e) {
        throw TraceError(std::string("header: ") + e.what(), 1, file);
    }
    return o;
}

nlohmann::json policy_options_json(const PolicyOptions& o) {
    return {{"sink", o.budget.sink},
            {"budget", o.budget.budget},
            {"window", o.budget.window},
            {"seed", o.seed},
            {"gate", o.gate}};
}

PolicyOptions policy_options_from_json(const JsonFields& p) {
    PolicyOptions o;
    o.budget.sink = p.get<int>("sink");
    o.budget.budget = p.get<int>("budget");
    o.budget.window = p.get<int>("window");
    o.seed = p.get<uint64_t>("seed");
    o.gate = p.get<std::string>("gate");
    return o;
}

nlohmann::json ring_options_json(const RingOptions& o) {
    return {{"mode", ring_mode_name(o.mode)},
            {"sinks", o.sinks},
            {"tokens_per_frame", o.tokens_per_block},
            {"checksum", o.checksum}};
}

RingOptions ring_options_from_json(const JsonFields& r) {
    RingOptions o;
    const std::string mode = r.get<std::string>("mode");
    const std::optional<RingMode> m = parse_ring_mode(mode);
    if (!m)
        throw JsonError(JsonFaultKind::WrongType, "ring.mode",
                        "is \"" + mode + "\", expected one of " + names_in(kRingModeNames, "|"));
    o.mode = *m;
    o.sinks = r.get<int>("sinks");
    // The decode block's size under its historic key name (the trace format keeps it).
    o.tokens_per_block = r.get<int>("tokens_per_frame");
    o.checksum = r.get<bool>("checksum");
    return o;
}

nlohmann::json ring_frame_json(const RingFrame& r) {
    return {{"offset", r.offset},
            {"filled", r.filled},
            {"pointer", r.write_pointer},
            {"wraps", r.wraps},
            {"read",
             {r.last_read.tail_begin, r.last_read.tail_end, r.last_read.head_begin,
              r.last_read.head_end}}};
}

nlohmann::json tick_result_json(const TickResult& r) {
    nlohmann::json rejections = nlohmann::json::array();
    for (const ValidationError& e : r.rejections) rejections.push_back(e.message);
    nlohmann::json json = {{"rejected", r.rejected},
                           {"rejections", rejections},
                           {"aborted", r.aborted},
                           {"failed_action", r.failed_action},
                           {"failed_primitive", r.failed_primitive},
                           {"abort_reason", r.abort_reason},
                           {"rebuilt", r.rebuilt},
                           {"actions_applied", r.actions_applied}};
    if (!r.dropped_proposals.empty()) {  // absent: none (and in traces from before the rule)
        nlohmann::json& dropped = json["dropped_proposals"] = nlohmann::json::array();
        for (const ValidationError& e : r.dropped_proposals) dropped.push_back(e.message);
    }
    return json;
}

nlohmann::json actions_json(const ActionList& actions) {
    return nlohmann::json::parse(to_json(actions));
}

}  // namespace kvw
