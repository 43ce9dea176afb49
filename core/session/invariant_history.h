#pragma once
#include <cstdint>
#include <vector>

#include "core/session/frame.h"
#include "core/state/invariant_result.h"

namespace kvw {

// Folds the per-layer results of StateManager::check_invariants() into one status per named
// invariant and remembers the last tick after which each held, for the invariants panel. A name
// the latest results lack is dropped. A name applies when any layer's check applies; when none
// does, its status passes and carries the first layer's reason.
class InvariantHistory {
public:
    void record(const std::vector<InvariantResult>& results, int64_t tick);
    void clear() { statuses_.clear(); }
    const std::vector<InvariantStatus>& statuses() const { return statuses_; }
    bool all_passed() const;

private:
    std::vector<InvariantStatus> statuses_;  // in the order names first appeared
};

}  // namespace kvw
