#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/session/frame.h"
#include "widgets/row_window.h"

namespace kvw {

// What a ledger record is to one layer of a selective cache (docs/ARCHITECTURE.md §12), in the
// order the policy view ranks them when a pixel covers several records.
enum class PolicyRole : uint8_t {
    None,       // never held by this layer (born later, or a gist's covered leaf)
    Evicted,    // left this layer (the ledger says when, why and with what score)
    Kept,       // live, and the policy keeps no bookkeeping (manual, pair-merge, focus)
    Window,     // live, in the layer's window deque
    HighValue,  // live, among the layer's high-value rows
    Sink,       // live, one of the layer's sinks
};

const char* policy_role_name(PolicyRole role);

// [layer][record - window.first]: what each record of the window is to each layer.
using PolicyRoles = std::vector<std::vector<PolicyRole>>;

// The roles of records [records.first, records.last) (clamped to the ledger; the default is
// every record) in every layer, from the records' removals, the layers' rows and the Frame's
// per-layer selection. Reads only the window's records, one pass over them for all layers,
// because a record's removals are one block in memory and a pass per layer would fetch them
// once per layer (ARCHITECTURE §7.1); each layer's rows and selection are scanned once.
PolicyRoles policy_roles(const Frame& frame, RowWindow records = {});

// `roles` pooled into `cells` adjacent cells (one per record when there are fewer records):
// each cell is the highest-ranked role among the records it covers, so a sink or a high-value
// record stays visible among thousands of evicted ones. Of n = roles.size() records in k cells,
// cell c covers records [c·n/k, (c + 1)·n/k), rounded down.
std::vector<PolicyRole> pool_policy_roles(const std::vector<PolicyRole>& roles, int cells);

// The score the next record leaving `layer`'s window must beat to take a high-value row: the
// weakest high-value score, once the high-value rows fill the budget B. None before then (a
// leaving record simply takes a free row) or when B is 0 or the policy keeps no bookkeeping.
std::optional<float> eviction_threshold(const Frame& frame, int layer);

}  // namespace kvw
