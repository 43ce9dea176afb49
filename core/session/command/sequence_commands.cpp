#include "core/session/command/sequence_commands.h"

#include "core/session/command/command_fields.h"
#include "core/session/session.h"

namespace kvw::command {

nlohmann::json Start::to_json() const {
    nlohmann::json event = {{"event", kEvent}};
    if (const auto* text = std::get_if<std::string>(&prompt))
        event["prompt"] = *text;
    else
        event["prompt_ids"] = std::get<std::vector<int32_t>>(prompt);
    return event;
}

Start Start::from_json(const JsonFields& event, size_t, const std::string&) {
    if (event.has("prompt_ids")) return {tokens_field(event, "prompt_ids")};
    return {event.get<std::string>("prompt")};
}

void Start::apply(Session& session) const {
    if (const auto* text = std::get_if<std::string>(&prompt))
        session.start(*text);
    else
        session.start_tokens(std::get<std::vector<int32_t>>(prompt));
}

// Only what the command says: the tick writes its outcomes (the tick reached, the sampled
// token(s), the action list as applied, the result, the state hash) beside it.
nlohmann::json Tick::to_json() const {
    nlohmann::json event = {{"event", kEvent}};
    if (forced.empty()) return event;
    event["forced"] = true;
    event["token"] = forced.front();
    if (forced.size() > 1) event["tokens"] = forced;
    return event;
}

Tick Tick::from_json(const JsonFields& event, size_t, const std::string&) {
    Tick tick;
    if (!event.get_or<bool>("forced", false)) {
        tick.one_token = !event.has("tokens");
        return tick;
    }
    tick.forced = event.has("tokens") ? tokens_field(event, "tokens")
                                      : std::vector<int32_t>{event.get<int32_t>("token")};
    return tick;
}

void Tick::apply(Session& session) const {
    if (!forced.empty())
        session.step_forced(forced);
    else if (one_token)
        session.step_one_token();
    else
        session.step();
}

}  // namespace kvw::command
