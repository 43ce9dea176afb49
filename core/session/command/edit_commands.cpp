#include "core/session/command/edit_commands.h"

#include "core/session/command/command_fields.h"
#include "core/session/session.h"
#include "core/session/trace.h"
#include "core/session/trace_events.h"

namespace kvw::command {

namespace {

// The recorded list, or nullopt when it does not read and `refused` says the session refused
// it (see Inject::from_json).
std::optional<ActionList> recorded_actions(const JsonFields& event, bool refused, size_t line,
                                           const std::string& file) {
    try {
        return actions_field(event, line, file);
    } catch (const TraceError&) {
        if (refused) return std::nullopt;
        throw;
    } catch (const JsonError&) {  // no "actions" at all
        if (refused) return std::nullopt;
        throw;
    }
}

}  // namespace

nlohmann::json Inject::to_json() const {
    return {{"event", kEvent}, {"actions", actions_json(actions)}};
}

std::optional<Inject> Inject::from_json(const JsonFields& event, size_t line,
                                        const std::string& file) {
    const bool refused = event.get_or<bool>("rejected", false);
    if (std::optional<ActionList> actions = recorded_actions(event, refused, line, file))
        return Inject{std::move(*actions)};
    return std::nullopt;
}

void Inject::apply(Session& session) const { session.inject(actions); }

nlohmann::json ApplyNow::to_json() const {
    return {{"event", kEvent}, {"actions", actions_json(actions)}};
}

std::optional<ApplyNow> ApplyNow::from_json(const JsonFields& event, size_t line,
                                            const std::string& file) {
    const bool refused =
        event.has("result") && event.object("result").get_or<bool>("rejected", false);
    if (std::optional<ActionList> actions = recorded_actions(event, refused, line, file))
        return ApplyNow{std::move(*actions)};
    return std::nullopt;
}

void ApplyNow::apply(Session& session) const { session.apply_now(actions); }

nlohmann::json ClearInjected::to_json() const { return {{"event", kEvent}}; }

ClearInjected ClearInjected::from_json(const JsonFields&, size_t, const std::string&) { return {}; }

void ClearInjected::apply(Session& session) const { session.clear_injected(); }

}  // namespace kvw::command
