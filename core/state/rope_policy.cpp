#include "core/state/rope_policy.h"

namespace kvw {

const char* rope_policy_name(RopePolicy policy) {
    switch (policy) {
        case RopePolicy::FinalIndex: return "final_index";
        case RopePolicy::Reindex: return "reindex";
        case RopePolicy::Original: return "original";
    }
    return "?";
}

std::optional<RopePolicy> parse_rope_policy(std::string_view name) {
    for (RopePolicy p : {RopePolicy::FinalIndex, RopePolicy::Reindex, RopePolicy::Original})
        if (name == rope_policy_name(p)) return p;
    return std::nullopt;
}

}  // namespace kvw
