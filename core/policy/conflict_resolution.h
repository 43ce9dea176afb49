#pragma once
#include <vector>

#include "core/state/action.h"

namespace kvw {

// A proposed action left out of the merged list, and the kept action it collided with.
struct DroppedAction {
    Action action;
    int proposed_index = -1;  // index in the proposed list
    int kept_index = -1;      // index in the merged list of the action it overlaps
};

struct MergedActions {
    ActionList actions;  // every injected action, in order, then the surviving proposed ones
    std::vector<DroppedAction> dropped;
};

// Steps 2-3's last word: merge what the user injected with what the proposer suggested so that
// no delete touches a row that a replace_pair touches. Injected actions always stay (a clash
// among them is the user's and pre-flight validation reports it); a proposed action is dropped
// when it overlaps (actions_overlap: same rows on a common layer, which covers a delete on a
// replaced row, two replaces sharing a row, duplicates) anything already kept, injected or an
// earlier proposed one. Adds never clash.
MergedActions merge_actions(const ActionList& injected, const ActionList& proposed);

}  // namespace kvw
