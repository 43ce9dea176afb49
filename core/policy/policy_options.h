#pragma once
#include <cstdint>
#include <string>

namespace kvw {

// The per-layer budget of a selective policy (docs/ARCHITECTURE.md §12): every layer keeps at
// most sink + budget + window rows, the same count in every layer, its own choice of rows.
struct PolicyBudget {
    int sink = 4;     // S: the first records, never evicted
    int budget = 64;  // B: high-value rows chosen by score
    int window = 32;  // W: the most recent records; at least 1 (the token being generated)
    bool operator==(const PolicyBudget&) const = default;
};

// Everything a policy of the registration table (policy_table.h) may be built with. Every
// field is recorded in the trace header, so that a replay builds the same policy.
struct PolicyOptions {
    PolicyBudget budget;
    uint64_t seed = 0;  // `random`: the seed of its scores
    std::string gate;   // `smartkv`: the gate sidecar (*.gate.gguf); empty: none given
    bool operator==(const PolicyOptions&) const = default;
};

// Throws BudgetError (a PolicyInputError) naming the count when one is negative or the window
// is empty.
void check_budget(const PolicyBudget& budget);

}  // namespace kvw
