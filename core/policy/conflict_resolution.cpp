#include "core/policy/conflict_resolution.h"

#include "core/state/action_validation.h"

namespace kvw {

MergedActions merge_actions(const ActionList& injected, const ActionList& proposed) {
    MergedActions merged{injected, {}};
    for (size_t p = 0; p < proposed.size(); ++p) {
        int clash = -1;
        for (size_t k = 0; k < merged.actions.size() && clash < 0; ++k)
            if (actions_overlap(merged.actions[k], proposed[p])) clash = int(k);
        if (clash >= 0)
            merged.dropped.push_back({proposed[p], int(p), clash});
        else
            merged.actions.push_back(proposed[p]);
    }
    return merged;
}

}  // namespace kvw
