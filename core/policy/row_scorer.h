#pragma once
#include <cstdint>
#include <memory>
#include <span>

namespace kvw {

class StateManager;

// One cache row as a scorer sees it (docs/ARCHITECTURE.md §12).
struct ScoredRow {
    int layer = 0;
    int row = 0;               // its position in the layer now
    int64_t id = 0;            // its ledger record
    int32_t rope_pos = 0;      // the RoPE phase its K carries: rotating K by -rope_pos gives the
                               // pre-RoPE key (core/math/rope.h, rope_rerotate)
    std::span<const float> k;  // kv_dim floats as stored (post-RoPE), heads one after another;
                               // empty for a scorer that does not read keys (reads_key)
};

// The score of a selective policy: higher means keep longer. One class per scorer, one row in
// the registration table (policy_table.cpp). Scores must be deterministic functions of the
// state and what the scorer observed (replay repeats them).
class RowScorer {
public:
    virtual ~RowScorer() = default;
    // After every change of the rows (prefill, each tick, apply_now). `appended`: the change
    // ended with an append whose attention mass state.last_attention_mass() holds.
    virtual void observe(const StateManager& state, bool appended) {
        (void)state;
        (void)appended;
    }
    virtual float score(const ScoredRow& row, const StateManager& state) = 0;
    // An exact copy, what it observed included (a selective policy's clone).
    virtual std::unique_ptr<RowScorer> clone() const = 0;
    // False: a row's score is taken once, when it enters the layer, and kept (a gate, a seeded
    // draw). True: the score changes as the session goes on (accumulated attention), and every
    // held row is scored again before each prune.
    virtual bool rescored() const { return false; }
    // False: score() never looks at row.k, and the policy reads no keys for it (each read of a
    // cache on an accelerator waits for the device).
    virtual bool reads_key() const { return true; }
};

}  // namespace kvw
