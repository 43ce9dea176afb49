// Moving a live state to another cache layout.
#include "core/state/state_manager.h"

namespace kvw {

void StateManager::set_layout(CacheLayout layout) {
    if (layout == cache_->layout()) return;
    auto next = make_kv_layout(layout, cache_->n_layers(), cache_->kv_dim(), cache_->capacity());
    // The logical rows are copied as they are, stale ones included: a layout is where rows
    // live, not what they hold, so the state hash does not change.
    for (int l = 0; l < cache_->n_layers(); ++l)
        for (int r = 0; r < cache_->rows(l); ++r)
            next->append(l, cache_->k_row(l, r), cache_->v_row(l, r), 1);
    cache_ = std::move(next);
}

}  // namespace kvw
