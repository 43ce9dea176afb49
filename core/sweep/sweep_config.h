#pragma once
#include <string>

#include "core/cache/cache_layout.h"
#include "core/cache/kv_storage.h"
#include "core/policy/policy_options.h"
#include "core/state/rope_policy.h"

namespace kvw {

// The grid's name of the full cache: every row kept at its position (docs/ARCHITECTURE.md §12,
// "Sweeps"). Not a policy of the table; a sweep scores it with the full-cache path.
inline constexpr const char* kFullCachePolicy = "full";

// One configuration of the cache a sweep scores a text through: the policy and its budgets, the
// K/V storage types, the layout and the RoPE policy. The full cache keeps every row at its
// position, so for it only the storage types count (budget, layout and RoPE stay at their
// defaults and are not printed).
struct SweepConfig {
    std::string policy = kFullCachePolicy;
    PolicyBudget budget;
    KvType k_type = KvType::F32;
    KvType v_type = KvType::F32;
    CacheLayout layout = CacheLayout::Contiguous;
    RopePolicy rope = RopePolicy::Original;

    bool full() const { return policy == kFullCachePolicy; }
    int rows_per_layer() const { return budget.sink + budget.budget + budget.window; }
    bool operator==(const SweepConfig&) const = default;
};

// "h2o S 4 B 8 W 8, K f32 V f32, contiguous, RoPE original"; "full, K f32 V f32".
std::string describe(const SweepConfig& config);

}  // namespace kvw
