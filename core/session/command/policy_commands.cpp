#include "core/session/command/policy_commands.h"

#include "core/session/session.h"
#include "core/session/trace_events.h"

namespace kvw::command {

nlohmann::json SetProposer::to_json() const { return {{"event", kEvent}, {"name", name}}; }

SetProposer SetProposer::from_json(const JsonFields& event, size_t, const std::string&) {
    return {event.get<std::string>("name")};
}

void SetProposer::apply(Session& session) const { session.set_proposer(name); }

nlohmann::json SetPolicyOptions::to_json() const {
    return {{"event", kEvent}, {"policy", policy_options_json(policy)}};
}

SetPolicyOptions SetPolicyOptions::from_json(const JsonFields& event, size_t, const std::string&) {
    return {policy_options_from_json(event.object("policy"))};
}

void SetPolicyOptions::apply(Session& session) const { session.set_policy_options(policy); }

}  // namespace kvw::command
