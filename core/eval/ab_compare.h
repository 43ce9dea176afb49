#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/eval/perplexity.h"
#include "core/policy/policy_options.h"
#include "core/state/rope_policy.h"

namespace kvw {

// Two cache policies side by side on one token sequence (docs/ARCHITECTURE.md §12, "A/B"):
// what `kvw compare` prints and the window's A/B view draws. Both sides forced the same
// tokens, so a ledger id names the same token in both.

// What a layer of A and the same layer of B did with one ledger record.
enum class AbKept : uint8_t { Neither, AOnly, BOnly, Both };
const char* ab_kept_name(AbKept kept);  // "neither", "A only", "B only", "both"

// How many rows each side keeps in one layer, and how many records both keep.
struct AbCounts {
    int a = 0, b = 0, both = 0;
    int a_only() const { return a - both; }
    int b_only() const { return b - both; }
    double jaccard() const;  // both / either; 1 when neither keeps anything
};

// `a_rows`, `b_rows`: the ledger ids one layer holds on each side (its pos2ledger).
AbCounts ab_counts(std::span<const int64_t> a_rows, std::span<const int64_t> b_rows);
// [id] for ids 0 .. records - 1.
std::vector<AbKept> ab_kept(std::span<const int64_t> a_rows, std::span<const int64_t> b_rows,
                            int64_t records);

// One side: a policy of the table and its budgets.
struct AbPolicy {
    std::string name;
    PolicyOptions options;
    bool operator==(const AbPolicy&) const = default;
};

// The A/B state the window shows, built on the session's worker (AbRun::frame) and never
// changed afterwards.
struct AbFrame {
    AbPolicy a, b;
    int64_t prompt_tokens = 0;        // BOS included: prefilled whole, not scored
    std::vector<int32_t> tokens;      // [id]: the token of each ledger record
    std::vector<std::string> pieces;  // [id]: its text
    PerplexityResult nll_a, nll_b;    // over the tokens after the prompt, each side's own cache
    RopePolicy rope = RopePolicy::FinalIndex;  // both sides' (pricing_rope_policy)
    std::vector<std::vector<AbKept>> kept;     // [layer][id]
    std::vector<AbCounts> counts;              // [layer]
};

}  // namespace kvw
