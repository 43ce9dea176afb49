#pragma once
// The outcome of one action list, a plain value: the Frame and the trace carry it without the
// state it was applied to.
#include <cstdint>
#include <string>
#include <vector>

#include "core/state/action_validation.h"

namespace kvw {

// What Step 4 did with one action list.
struct TickResult {
    int64_t tick = 0;
    bool rejected = false;                    // pre-flight refused the list; nothing changed
    std::vector<ValidationError> rejections;  // every fault validate_action_list found
    bool aborted = false;    // a primitive failed after pre-flight: mirror put back, cache rebuilt
    int failed_action = -1;  // index into the given list; -1 for the batched appends
    std::string failed_primitive;  // "remove", "insert", "append", ...
    std::string abort_reason;      // the exception's message
    bool rebuilt = false;          // rebuild_from_mirror() ran
    int actions_applied = 0;       // before the failure, or all of them
    // Block decoding: the tokens decoded after the list's adds (DecodeBlock), in order.
    std::vector<int32_t> decoded;
    // A session's tick (InvalidProposals::Drop): the proposed actions pre-flight refused, left
    // out so that the rest of the list, the sampled token's add included, could go in.
    std::vector<ValidationError> dropped_proposals;
};

}  // namespace kvw
