#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "core/policy/gate/lifespan_records.h"
#include "core/state/state_manager.h"

namespace kvw {

// Measures lifespans (LifespanOptions) while a session runs with the full cache: begin() after
// the prompt, observe() after every tick. Tokens born at a tick are watched from then on
// (prompt tokens are not: the prefill's attention mass sums every prompt query, so their
// history has no per-tick shape); a token watched for the whole horizon becomes a record with
// its pre-RoPE key at birth; tokens still inside their horizon when the run ends are
// right-censored and dropped (counted in censored()).
class LifespanRecorder {
public:
    LifespanRecorder(const StateManager& state, LifespanOptions options);

    void begin(const StateManager& state);
    // Throws PolicyInputError when the tick left no per-row attention mass (an edit moved
    // rows) or a watched token left a layer: lifespans are defined on the full cache.
    void observe(const StateManager& state, int64_t tick);

    const LifespanRecords& records() const { return records_; }
    // Tokens (summed over layers) still inside their horizon: dropped from the records.
    size_t censored() const;

private:
    struct Watched {
        int64_t birth = 0;
        int lifespan = 0;
        std::vector<float> key;
    };
    LifespanRecords records_;
    std::vector<std::map<int64_t, Watched>> watched_;  // [layer] ledger id → token
    std::vector<int64_t> next_id_;  // [layer]: a row with this id or above was born this tick
};

}  // namespace kvw
