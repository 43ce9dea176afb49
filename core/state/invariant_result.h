#pragma once
#include <algorithm>
#include <string>
#include <vector>

namespace kvw {

// One named check of the coupled state, for one layer: passed, or the first row where it failed.
struct InvariantResult {
    std::string name;  // "rows_aligned", "scales_finite", "ids_live", "ids_unique", "rope_policy"
    bool passed = true;
    int layer = -1;
    int row = -1;  // first failing row, -1 when the check passed or is not about a row
    std::string detail;
    // Why the check does not apply to this state and configuration (no scales to check, a
    // budget no running policy keeps); empty when it applies. A check that does not apply
    // passes: it is shown as such, neither green nor red.
    std::string not_applicable = {};
    bool operator==(const InvariantResult&) const = default;
};

inline bool all_passed(const std::vector<InvariantResult>& results) {
    return std::all_of(results.begin(), results.end(),
                       [](const InvariantResult& r) { return r.passed; });
}

}  // namespace kvw
