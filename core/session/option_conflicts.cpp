#include "core/session/option_conflicts.h"

#include <algorithm>

#include "core/policy/policy_table.h"

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
    if (ring && (selective || focus) && o.ring.tokens_per_frame > 1)
        conflict(changed, ChangedSetting::Policy, "tokens-per-frame", "policy",
                 "tokens-per-frame " + std::to_string(o.ring.tokens_per_frame) + " with policy " +
                     o.proposer + ": the policy makes room for one token a tick, a frame appends " +
                     std::to_string(o.ring.tokens_per_frame) +
                     " and overruns its budget; use tokens-per-frame 1");
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

}  // namespace kvw
