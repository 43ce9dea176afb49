#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/session/frame.h"

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

// The role of every ledger record (index == id) in `layer`, from the Frame's per-layer
// selection and the records' statuses.
std::vector<PolicyRole> policy_roles(const Frame& frame, int layer);

// The score the next record leaving `layer`'s window must beat to take a high-value row: the
// weakest high-value score, once the high-value rows fill the budget B. None before then (a
// leaving record simply takes a free row) or when B is 0 or the policy keeps no bookkeeping.
std::optional<float> eviction_threshold(const Frame& frame, int layer);

}  // namespace kvw
