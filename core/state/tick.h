#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/state/action.h"
#include "core/state/action_validation.h"
#include "core/state/state_manager.h"
#include "core/state/tick_result.h"

namespace kvw {

// Block decoding (ARCHITECTURE §17): after the list's adds, `more` further tokens in the same
// tick, each one next_token(the logits of the row before it) and appended as a decode step of
// its own. Room for the whole block (the adds and the `more`) is made once, first
// (StateManager::make_block_room), so a ring drops its oldest rows in one update per tick.
struct DecodeBlock {
    int more = 0;
    std::function<int32_t(const std::vector<float>& logits)> next_token;
};

// The shape of the state that pre-flight validates against (rows of every layer, capacity,
// vocabulary).
SequenceShape sequence_shape(const StateManager& state);

// Step 4 (ARCHITECTURE §2.1): pre-flight (validate_action_list), then the edits in
// application_order() (strictly descending first position), then every add as one append
// (kind Generated; an add's `layers` is ignored: appends go to every layer). Any exception after
// pre-flight aborts the tick: the error is logged with the action and primitive, the mirror maps
// and ledger liveness go back to how they were before the tick (the ledger keeps every record, the
// ones born in the tick die at `tick`) and the cache is rebuilt from the mirror. No snapshot of
// the cache is taken. With `block.more` > 0 the adds are followed by the block's decode steps,
// inside the same transaction (an abort takes the whole block back).
TickResult apply_action_list(StateManager& state, const ActionList& actions, int64_t tick,
                             const DecodeBlock& block = {});

}  // namespace kvw
