#include "core/session/command/command_fields.h"

#include "core/session/trace.h"
#include "core/state/action_json.h"

namespace kvw {

ActionList actions_field(const JsonFields& event, size_t line, const std::string& file) {
    const nlohmann::json& actions = event.at("actions");
    try {
        return parse_action_list(actions.dump());
    } catch (const ActionParseError& e) {
        throw TraceError("\"" + event.path_of("actions") + "\": " + e.what(), line, file);
    }
}

std::vector<int32_t> tokens_field(const JsonFields& event, std::string_view key) {
    std::vector<int32_t> tokens;
    const nlohmann::json& list = event.array(key);
    for (size_t i = 0; i < list.size(); ++i)
        tokens.push_back(
            json_as<int32_t>(list[i], event.path_of(key) + "[" + std::to_string(i) + "]"));
    return tokens;
}

}  // namespace kvw
