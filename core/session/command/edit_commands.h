#pragma once
// The commands that edit the cache by hand: an action list queued for the next tick or applied
// now, and the queue dropped (ARCHITECTURE §7 "Commands").
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/json/json_fields.h"
#include "core/state/action.h"

namespace kvw {

class Session;

namespace command {

// Session::inject: queued for the next tick after a pre-flight check (ActionsRejected, and the
// event records "rejected", when it fails).
struct Inject {
    static constexpr std::string_view kEvent = "inject";
    ActionList actions;

    nlohmann::json to_json() const;
    // nullopt for a refused list that the JSON reader refuses too (a negative position made in
    // memory by a caller of Session): it changed nothing, so there is nothing to repeat.
    static std::optional<Inject> from_json(const JsonFields& event, size_t line,
                                           const std::string& file);
    void apply(Session& session) const;
    bool operator==(const Inject&) const = default;
};

// Session::apply_now: Step 4 alone, at the current tick.
struct ApplyNow {
    static constexpr std::string_view kEvent = "apply_now";
    ActionList actions;

    nlohmann::json to_json() const;
    // nullopt as Inject's: a list whose recorded result is a rejection and that does not read.
    static std::optional<ApplyNow> from_json(const JsonFields& event, size_t line,
                                             const std::string& file);
    void apply(Session& session) const;
    bool operator==(const ApplyNow&) const = default;
};

// Session::clear_injected: the queued actions dropped.
struct ClearInjected {
    static constexpr std::string_view kEvent = "clear_injected";

    nlohmann::json to_json() const;
    static ClearInjected from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const ClearInjected&) const = default;
};

}  // namespace command
}  // namespace kvw
