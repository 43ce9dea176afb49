#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "core/mirror/layer_map.h"
#include "core/mirror/ledger.h"
#include "core/policy/policy_options.h"
#include "core/state/invariant_result.h"

namespace kvw {

// A selective policy's bookkeeping of one layer (the seed's metadata, docs/ARCHITECTURE.md §12).
// Ids are ledger ids.
struct LayerSelection {
    std::vector<int64_t> sinks;                         // sink_indices, in row order
    std::deque<int64_t> window;                         // window_deque, oldest first
    std::vector<std::pair<float, int64_t>> high_value;  // (score, id), ascending
    int64_t seen = 0;  // records the layer took in since the prefill (sinks fill first)

    size_t rows() const { return sinks.size() + window.size() + high_value.size(); }
    bool operator==(const LayerSelection&) const = default;
};

// The invariants of one layer's bookkeeping against its rows, each named once:
//  budget_rows        rows == sinks + high-value + window, and == S+B+W once `seen` reached it
//  sinks_first        the sinks are the first min(S, seen) rows, and the same in every layer
//                     (`first_layer_sinks`: layer 0's)
//  window_last        at most W ids, the last rows in row order
//  high_value_sorted  at most B ids, strictly ascending (score, id), live, not sinks or window
//  no_return          no row holds a record that once left this layer
std::vector<InvariantResult> check_selection(const LayerSelection& selection,
                                             const PolicyBudget& budget, int layer,
                                             const LayerMap& map, const Ledger& ledger,
                                             const std::vector<int64_t>& first_layer_sinks);

// The names check_selection() reports, in its order.
const std::vector<std::string>& selection_invariant_names();

}  // namespace kvw
