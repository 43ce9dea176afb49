#pragma once
#include <functional>
#include <memory>
#include <span>
#include <string_view>

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
};

std::span<const PolicyInfo> policy_table();
// nullptr for an unknown name.
const PolicyInfo* find_policy(std::string_view name);

}  // namespace kvw
