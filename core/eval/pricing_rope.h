#pragma once
#include "core/state/rope_policy.h"

namespace kvw {

// The RoPE position policy a cache policy is priced under when none is asked for (ARCHITECTURE
// §12, "One RoPE policy for pricing"): kvw perplexity's session path, compare, sweep, bench
// policies and the window's A/B run all take it from here, so that their perplexities compare.
// Not final_index: the rows an eviction leaves behind keep phases of rows that are gone.
inline constexpr RopePolicy kPricingRopePolicy = RopePolicy::Original;

// The one for a session with wLOD block size `wlod_k`: final_index with wLOD on, the only policy
// gists take (§14); kPricingRopePolicy otherwise.
constexpr RopePolicy pricing_rope_policy(int wlod_k) {
    return wlod_k > 0 ? RopePolicy::FinalIndex : kPricingRopePolicy;
}

}  // namespace kvw
