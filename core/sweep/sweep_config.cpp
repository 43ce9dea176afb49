#include "sweep_config.h"

namespace kvw {

std::string describe(const SweepConfig& c) {
    std::string out = c.policy;
    if (!c.full())
        out += " S " + std::to_string(c.budget.sink) + " B " + std::to_string(c.budget.budget) +
               " W " + std::to_string(c.budget.window);
    out += std::string(", K ") + name_in(kKvTypeNames, c.k_type) + " V " +
           name_in(kKvTypeNames, c.v_type);
    if (!c.full())
        out += std::string(", ") + name_in(kCacheLayoutNames, c.layout) + ", RoPE " +
               name_in(kRopePolicyNames, c.rope);
    return out;
}

}  // namespace kvw
