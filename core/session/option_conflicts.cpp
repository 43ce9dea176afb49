#include "core/session/option_conflicts.h"

#include <algorithm>

#include "core/policy/policy_table.h"
#include "core/state/rope_policy.h"

namespace kvw {

namespace {

// Under `changed`, the conflict names that side first; else the order given.
[[noreturn]] void conflict(ChangedSetting changed, ChangedSetting second_side, std::string a,
                           std::string b, const std::string& what) {
    if (changed == second_side) std::swap(a, b);
    throw OptionConflict(std::move(a), std::move(b), what);
}

}  // namespace

void check_option_conflicts(const SessionOptions& o, ChangedSetting changed) {
    const PolicyInfo* policy = find_policy(o.proposer);
    const bool selective = policy && policy->selective;
    const bool focus = o.proposer == "focus";
    const bool ring = o.layout == CacheLayout::Ring;
    const PolicyBudget& b = o.policy.budget;
    // A ring holding the policy's rows never overwrites (the policy prunes first), so its own
    // sinks need not cover the policy's: only its size is checked.
    const int64_t kept = int64_t(b.sink) + b.budget + b.window;
    if (ring && selective && o.capacity < kept)
        conflict(changed, ChangedSetting::Policy, "ring-size", "budget",
                 "ring-size " + std::to_string(o.capacity) + " is below the " +
                     std::to_string(kept) + " rows the " + o.proposer + " policy keeps (sink " +
                     std::to_string(b.sink) + " + budget " + std::to_string(b.budget) +
                     " + window " + std::to_string(b.window) +
                     "): the ring would overwrite rows the policy keeps; use a ring of at least " +
                     std::to_string(kept) + " rows or a smaller sink + budget + window");
    if (ring && (selective || focus) && o.ring.tokens_per_block > 1)
        conflict(changed, ChangedSetting::Policy, "tokens-per-frame", "policy",
                 "tokens-per-frame " + std::to_string(o.ring.tokens_per_block) + " with policy " +
                     o.proposer + ": the policy makes room for one token a tick, a frame appends " +
                     std::to_string(o.ring.tokens_per_block) +
                     " and overruns its budget; use tokens-per-frame 1");
    if (o.wlod_k >= 2 && o.rope_policy != RopePolicy::FinalIndex)
        conflict(changed, ChangedSetting::Wlod, "rope", "wlod-k",
                 std::string("rope ") + rope_policy_name(o.rope_policy) + " with wlod-k " +
                     std::to_string(o.wlod_k) +
                     ": a gist row takes the phase of its central leaf, which only final_index "
                     "keeps (reindex and original rewrite every row's phase); use rope "
                     "final_index or wLOD off");
    if (o.wlod_k >= 2 && policy_edits_rows(o.proposer))
        conflict(changed, ChangedSetting::Wlod, "policy", "wlod-k",
                 "policy " + o.proposer + " with wlod-k " + std::to_string(o.wlod_k) +
                     ": the policy deletes or merges single rows, and no row at or before a "
                     "gist may go (it would shift the gist's block), so its edits are rejected "
                     "once a block is collapsed; use policy focus or manual with wLOD, or wLOD "
                     "off");
    if (focus && o.wlod_k >= 2 && o.wlod_max > 0) {
        // Focus folds whole blocks of K rows, never one holding a pinned row (BOS, a ring's
        // sinks) nor one among the last K rows; before the tick's token would pass W_max there
        // must be a block between those to fold.
        const int64_t k = o.wlod_k;
        const int64_t pinned = std::max<int64_t>(1, ring ? o.ring.sinks : 0);
        const int64_t least = (pinned + k - 1) / k * k + 2 * k;
        if (o.wlod_max < least)
            conflict(changed, ChangedSetting::Wlod, "policy", "wlod-max",
                     "policy focus with wlod-max " + std::to_string(o.wlod_max) +
                         ": focus never folds the first block (it holds BOS or a ring's "
                         "sinks) nor the last " +
                         std::to_string(k) + " rows, so with wlod-k " + std::to_string(k) +
                         " it needs wlod-max >= " + std::to_string(least));
    }
}

bool policy_edits_rows(std::string_view proposer) {
    return proposer != "manual" && proposer != "focus";
}

void check_no_gist_rows_under(std::string_view proposer, const StateManager& state) {
    if (!policy_edits_rows(proposer)) return;
    if (const auto at = state.first_gist_row())
        throw OptionConflict(
            "policy", "collapse",
            "policy " + std::string(proposer) + " while layer " + std::to_string(at->first) +
                " row " + std::to_string(at->second) +
                " is a gist made by a collapse: the policy deletes or merges single rows, and no "
                "row at or before a gist may go; expand the gist rows first");
}

void check_no_collapse_under(std::string_view proposer, const ActionList& actions) {
    if (!policy_edits_rows(proposer)) return;
    for (const Action& a : actions)
        if (std::holds_alternative<CollapseAction>(a.op))
            throw OptionConflict(
                "collapse", "policy",
                "collapse under policy " + std::string(proposer) +
                    ": the policy deletes or merges single rows, and no row at or before a gist "
                    "may go, so its edits would be rejected; collapse under manual or focus");
}

}  // namespace kvw
