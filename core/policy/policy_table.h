#pragma once
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "core/policy/proposer.h"

namespace kvw {

// One row per cache policy (docs/ARCHITECTURE.md §12): the one place a policy is named.
// make_proposer(), proposer_names(), the command line's --policy help, the .kvs `policy`
// command and the window's policy list are all derived from it.
struct PolicyInfo {
    std::string_view name;
    std::string_view help;  // one line
    bool selective;         // keeps S+B+W rows per layer: takes --sink/--budget/--window
    std::function<std::unique_ptr<Proposer>(const PolicyOptions&)> make;
    // Invariants that are this policy's goals rather than properties of every state (focus
    // keeps the rows within W_max: `wlod_budget`). Under a policy that keeps none of them they
    // do not apply (policy_goal_not_applicable).
    std::vector<std::string_view> keeps = {};
};

std::span<const PolicyInfo> policy_table();
// nullptr for an unknown name.
const PolicyInfo* find_policy(std::string_view name);

// Marks `result` not applicable when it is a goal that some policies of the table keep and
// `proposer` is not one of them ("needs a policy: focus"), keeping what it found in the reason:
// over W_max under `manual` is what `manual` does, not a broken state. Returns whether it did.
bool policy_goal_not_applicable(InvariantResult& result, std::string_view proposer);

}  // namespace kvw
