// Switching the RoPE position policy of a live state.
#include "core/state/state_manager.h"

namespace kvw {

void StateManager::set_policy(RopePolicy policy) {
    changed();
    // Moving to FinalIndex, every row counts as written now, at its index: the phases Original
    // leaves are ledger ids, which grow past the capacity that FinalIndex phases stay under.
    const bool to_final_index = policy == RopePolicy::FinalIndex && policy_ != policy;
    policy_ = policy;
    for (size_t l = 0; l < maps_.size(); ++l) {
        LayerMap& map = maps_.edit(l);
        for (int r = 0; r < map.rows(); ++r) {
            int32_t& phase = map.rope_pos[size_t(r)];
            if (policy == RopePolicy::Reindex || to_final_index) phase = r;
            if (policy == RopePolicy::Original) phase = int32_t(map.pos2ledger[size_t(r)]);
        }
    }
    // The K rows carry the old phases; a fresh pass at the new ones is the simplest exact way.
    rebuild_from_mirror();
}

}  // namespace kvw
