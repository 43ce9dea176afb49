#include "core/session/command/storage_commands.h"

#include "core/cache/kv_storage.h"
#include "core/session/command/command_fields.h"
#include "core/session/session.h"
#include "core/session/trace_events.h"

namespace kvw::command {

nlohmann::json SetRopePolicy::to_json() const {
    return {{"event", kEvent}, {"name", rope_policy_name(policy)}};
}

SetRopePolicy SetRopePolicy::from_json(const JsonFields& event, size_t, const std::string&) {
    return {named_field(event, "name", &parse_rope_policy, "a RoPE policy")};
}

void SetRopePolicy::apply(Session& session) const { session.set_rope_policy(policy); }

nlohmann::json SetLayout::to_json() const {
    nlohmann::json event = {
        {"event", kEvent}, {"name", cache_layout_name(layout)}, {"capacity", capacity}};
    if (ring) event["ring"] = ring_options_json(*ring);
    return event;
}

SetLayout SetLayout::from_json(const JsonFields& event, size_t, const std::string&) {
    SetLayout command;
    command.layout = named_field(event, "name", &parse_cache_layout, "a cache layout");
    if (event.has("ring")) command.ring = ring_options_from_json(event.object("ring"));
    command.capacity = event.get_or<int64_t>("capacity", 0);
    return command;
}

void SetLayout::apply(Session& session) const {
    session.set_layout(layout, ring.value_or(session.options().ring), capacity);
}

nlohmann::json SetKvTypes::to_json() const {
    return {{"event", kEvent}, {"k_type", kv_type_name(k)}, {"v_type", kv_type_name(v)}};
}

SetKvTypes SetKvTypes::from_json(const JsonFields& event, size_t, const std::string&) {
    const std::string types = std::string("one of ") + names_in(kKvTypeNames, "|");
    return {named_field(event, "k_type", &parse_kv_type, types),
            named_field(event, "v_type", &parse_kv_type, types)};
}

void SetKvTypes::apply(Session& session) const { session.set_kv_types(k, v); }

nlohmann::json SetGuard::to_json() const { return {{"event", kEvent}, {"on", on}}; }

SetGuard SetGuard::from_json(const JsonFields& event, size_t, const std::string&) {
    return {event.get<bool>("on")};
}

void SetGuard::apply(Session& session) const { session.set_guard(on); }

}  // namespace kvw::command
