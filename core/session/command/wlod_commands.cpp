#include "core/session/command/wlod_commands.h"

#include "core/session/session.h"

namespace kvw::command {

nlohmann::json SetWlod::to_json() const { return {{"event", kEvent}, {"k", k}, {"max", max}}; }

SetWlod SetWlod::from_json(const JsonFields& event, size_t, const std::string&) {
    return {event.get<int>("k"), event.get<int64_t>("max")};
}

void SetWlod::apply(Session& session) const { session.set_wlod(k, max); }

nlohmann::json SetGistNet::to_json() const { return {{"event", kEvent}, {"path", path}}; }

SetGistNet SetGistNet::from_json(const JsonFields& event, size_t, const std::string&) {
    return {event.get<std::string>("path")};
}

void SetGistNet::apply(Session& session) const { session.set_gist_net(path); }

}  // namespace kvw::command
