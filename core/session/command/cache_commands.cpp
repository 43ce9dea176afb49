#include "core/session/command/cache_commands.h"

#include "core/session/session.h"

namespace kvw::command {

nlohmann::json Rebuild::to_json() const { return {{"event", kEvent}}; }

Rebuild Rebuild::from_json(const JsonFields&, size_t, const std::string&) { return {}; }

void Rebuild::apply(Session& session) const { session.rebuild(); }

nlohmann::json Drift::to_json() const { return {{"event", kEvent}}; }

Drift Drift::from_json(const JsonFields&, size_t, const std::string&) { return {}; }

void Drift::apply(Session& session) const { session.measure_drift(); }

nlohmann::json Desync::to_json() const {
    return {{"event", kEvent}, {"layer", layer}, {"row", row}};
}

Desync Desync::from_json(const JsonFields& event, size_t, const std::string&) {
    return {event.get<int>("layer"), event.get<int>("row")};
}

void Desync::apply(Session& session) const { session.debug_desync_row(layer, row); }

nlohmann::json InjectFault::to_json() const {
    return {{"event", kEvent}, {"primitive", primitive}};
}

InjectFault InjectFault::from_json(const JsonFields& event, size_t, const std::string&) {
    return {event.get<int>("primitive")};
}

void InjectFault::apply(Session& session) const { session.inject_fault(primitive); }

}  // namespace kvw::command
