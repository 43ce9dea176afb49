#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "core/state/invariant_result.h"
#include "core/state/state_manager.h"
#include "core/wlod/wlod_tree.h"

namespace kvw {

struct WlodOptions {
    int64_t w_max = 0;  // rows the working context may hold (budget invariant); 0: no budget
    // Regeneration recomputes everything when the earliest dirty row lies before this fraction
    // of the rows (an early edit saves little and a full pass has no prefix to check);
    // 0: always from the earliest dirty row (ARCHITECTURE §14 gives the measured default).
    double full_recompute_below = 0.1;
    // Regeneration ends with a fresh reference pass that measures the drift it left
    // (the "incremental == full" invariant); off in benchmarks, which time regeneration alone.
    bool verify = true;
    // Relative row drift the invariant allows; int8 / FP8 / bf16 rows are allowed their
    // storage's rounding if that is more.
    float tolerance = 1e-5f;
};

// The wLOD bookkeeping of a session (ARCHITECTURE §14): per layer, the timeline it saw last,
// the dirty nodes since the last regeneration and the gist vectors of complete nodes.
// observe() after every change of the state finds what changed by comparing rows and leaves;
// regenerate() makes the dirty gists and rows exact again.
class WlodContext {
public:
    WlodContext(const StateManager& state, WlodOptions options);

    // Marks dirty what changed since the last observe: hierarchical — the nodes whose leaves
    // changed and their ancestors; temporal — every node ending after the first leaf of the
    // first row whose record changed.
    void observe(const StateManager& state);
    // Dirty gists bottom-up (level 1 from tokens, level 2 from level 1), then the rows from the
    // earliest dirty row on (StateManager::recompute_suffix), or every row when that row is
    // before options.full_recompute_below of them. Clears the dirty flags. Returns the first
    // recomputed row (rows() when nothing was dirty).
    int regenerate(StateManager& state);
    // Every complete node's gist computed from scratch (the reference regeneration must equal).
    std::map<NodeKey, std::vector<float>> full_gists(const StateManager& state, int layer) const;

    // The tree of a layer with gist vectors and dirty flags filled in.
    WlodTree tree(const StateManager& state, int layer) const;
    std::set<NodeKey> dirty_hierarchical(int layer) const { return layers_[size_t(layer)].hier; }
    int64_t dirty_temporal_from(int layer) const { return layers_[size_t(layer)].temporal_from; }
    const Invalidation& last_invalidation(int layer) const { return layers_[size_t(layer)].last; }
    const std::map<NodeKey, std::vector<float>>& gists(int layer) const {
        return layers_[size_t(layer)].gists;
    }
    // Largest relative drift the last verified regeneration left (-1: not measured yet).
    float last_drift() const { return last_drift_; }
    int last_first_row() const { return last_first_row_; }
    bool last_was_full() const { return last_full_; }
    const WlodOptions& options() const { return options_; }
    void set_w_max(int64_t w) { options_.w_max = w; }
    void set_full_recompute_below(double f) { options_.full_recompute_below = f; }

    // contiguity, alignment, levels, budget, gist RoPE, incremental == full (ARCHITECTURE §14).
    std::vector<InvariantResult> check_invariants(const StateManager& state) const;

private:
    struct LayerTrack {
        std::vector<int64_t> rows;    // pos2ledger when last observed
        std::vector<int64_t> leaves;  // the timeline then
        std::set<NodeKey> hier;
        int64_t temporal_from = -1;
        Invalidation last;
        std::map<NodeKey, std::vector<float>> gists;
    };
    void regenerate_gists(const StateManager& state, int layer);

    WlodOptions options_;
    std::vector<LayerTrack> layers_;
    float last_drift_ = -1.0f;
    // What last_drift_ was held to: the options' tolerance, or the storage types' rounding
    // where that is larger (StateManager::default_drift_tolerance).
    float last_tolerance_ = 0.0f;
    int last_first_row_ = 0;
    bool last_full_ = false;
};

}  // namespace kvw
