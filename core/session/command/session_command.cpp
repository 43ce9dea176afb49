#include "core/session/command/session_command.h"

namespace kvw {

std::string_view event_name(const SessionCommand& command) {
    return std::visit([](const auto& c) { return c.kEvent; }, command);
}

nlohmann::json to_json(const SessionCommand& command) {
    return std::visit([](const auto& c) { return c.to_json(); }, command);
}

void apply_command(const SessionCommand& command, Session& session) {
    std::visit([&](const auto& c) { c.apply(session); }, command);
}

}  // namespace kvw
