#include "core/session/command/backend_commands.h"

#include "core/session/session.h"

namespace kvw::command {

nlohmann::json SetBackend::to_json() const { return {{"event", kEvent}, {"name", name}}; }

SetBackend SetBackend::from_json(const JsonFields& event, size_t, const std::string&) {
    return {event.get<std::string>("name")};
}

void SetBackend::apply(Session& session) const { session.set_backend(name); }

}  // namespace kvw::command
