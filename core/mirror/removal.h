#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace kvw {

// Why a record left a layer (docs/ARCHITECTURE.md §12). The ledger keeps it per record and
// layer, with the tick and the score the record had when a selective policy evicted it.
enum class RemovalReason : uint8_t {
    Deleted,        // a delete action without a policy reason: the user's, or an injected list's
    Replaced,       // one of the pair a replace_pair folded
    Reset,          // the state was emptied
    TickAborted,    // born in a tick whose list aborted; the mirror went back to before it
    BulkPrune,      // not among the kept rows at the prefill -> generation transition
    StreamingLoss,  // lost the competition between the row leaving the window and the weakest
                    // high-value row
    Window,         // left the window with no high-value budget to compete for
    RingOverwrite,  // the oldest row of a full ring layout, overwritten by an append
};

const char* removal_reason_name(RemovalReason reason);  // "deleted", "bulk_prune", ...
std::optional<RemovalReason> parse_removal_reason(std::string_view name);

// What a remove primitive records about the rows it drops.
struct RemovalCause {
    RemovalReason reason = RemovalReason::Deleted;
    std::optional<float> score;  // the policy's score of the row, when a policy chose it
    bool operator==(const RemovalCause&) const = default;
};

// When and why a record left one layer; tick -1 while it has not.
struct Removal {
    int64_t tick = -1;
    RemovalCause cause;
    bool operator==(const Removal&) const = default;
};

}  // namespace kvw
