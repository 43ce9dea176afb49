#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/state/action.h"

namespace kvw {

// The rows an action touches in each of its layers (see actions_overlap); none for add.
struct RowSpan {
    int64_t first = 0;
    int64_t last = 0;
};
std::optional<RowSpan> row_span(const Action& action);

// For every action of `list`, the lowest index below its own of an action whose span
// intersects its span on a layer both affect, or -1 when there is none. `layers_of[i]` holds
// the distinct existing layers action i affects (every layer when its `layers` is empty).
// Pre-flight reports one overlap per action, naming this first partner; comparing every pair
// instead costs quadratic time, which a list of thousands of duplicates turns into minutes.
// Here: O(E log E) for E (action, layer) pairs, with one interval tree for the actions on
// every layer and one per layer for the actions restricted to some layers.
std::vector<int> first_earlier_overlaps(const ActionList& list,
                                        const std::vector<std::vector<int>>& layers_of,
                                        int n_layers);

}  // namespace kvw
