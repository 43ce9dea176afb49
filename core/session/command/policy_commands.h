#pragma once
// The commands that choose the proposer of Step 3 and its options (ARCHITECTURE §7 "Commands").
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/json/json_fields.h"
#include "core/policy/policy_options.h"

namespace kvw {

class Session;

namespace command {

// Session::set_proposer: a policy of the table by name, with the current options.
struct SetProposer {
    static constexpr std::string_view kEvent = "set_proposer";
    std::string name;

    nlohmann::json to_json() const;
    static SetProposer from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const SetProposer&) const = default;
};

// Session::set_policy_options: the current policy again with other budgets, seed or gate.
struct SetPolicyOptions {
    static constexpr std::string_view kEvent = "set_policy_options";
    PolicyOptions policy;

    nlohmann::json to_json() const;
    static SetPolicyOptions from_json(const JsonFields& event, size_t line,
                                      const std::string& file);
    void apply(Session& session) const;
    bool operator==(const SetPolicyOptions&) const = default;
};

}  // namespace command
}  // namespace kvw
