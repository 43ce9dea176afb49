// The ring layout's part of the coupled state (docs/ARCHITECTURE.md §17): the overwrite that an
// append to a full ring starts with, and the ring's guard checks.
#include "core/cache/cache_error.h"
#include "core/state/state_manager.h"

namespace kvw {

const RingLayout* StateManager::ring() const {
    return dynamic_cast<const RingLayout*>(cache_.get());
}

// The rows leave through the same two blades as a remove: the cache first (one range per layer:
// Roll shifts once, Pointer and Lut move the head), then pos2ledger and the ledger.
void StateManager::make_block_room(int n, int64_t tick) {
    changed();
    const RingLayout* r = ring();
    if (!r) {
        for (int l = 0; l < n_layers(); ++l) cache_->check_room(l, n);
        return;
    }
    std::vector<int> over(size_t(n_layers()), 0);
    bool any = false;
    for (int l = 0; l < n_layers(); ++l) {
        const int sinks = r->sink_rows(l);
        const int ring_rows = rows(l) - sinks;
        over[size_t(l)] = std::max(rows(l) + n - r->capacity(), 0);
        // The sinks stay: an append of more than T - S rows cannot make its room.
        if (over[size_t(l)] > ring_rows) throw CapacityExceeded(l, rows(l), n, r->capacity());
        any = any || over[size_t(l)] > 0;
    }
    if (!any) return;
    last_attention_mass_.clear();
    for (int l = 0; l < n_layers(); ++l)
        if (over[size_t(l)] > 0) cache_->remove_range(l, r->sink_rows(l), over[size_t(l)]);
    between_blades("ring_overwrite");
    const RemovalCause cause{RemovalReason::RingOverwrite, std::nullopt};
    for (int l = 0; l < n_layers(); ++l) {
        const int first = std::min(ring_options_.sinks, rows(l));
        LayerMap& map = maps_.edit(size_t(l), first);
        for (int i = 0; i < over[size_t(l)]; ++i) {
            ledger_.mark_removed(map.pos2ledger[size_t(first)], l, tick, cause);
            map.remove(first);
        }
    }
    // As after a remove: reindex re-rotates the rows that moved, guard re-checks, all before
    // the new rows' forward reads them.
    std::vector<int> layers;
    for (int l = 0; l < n_layers(); ++l)
        if (over[size_t(l)] > 0) layers.push_back(l);
    end_primitive(layers, "ring_overwrite");
}

void StateManager::check_ring(std::vector<InvariantResult>& out) const {
    const RingLayout* r = ring();
    if (!r) return;
    const auto add = [&](const char* name, int layer, const std::string& fault) {
        out.push_back(InvariantResult{name, fault.empty(), layer, -1, fault});
    };
    for (int l = 0; l < n_layers(); ++l) {
        add("ring_pointer", l, r->check_pointer(l));
        add("ring_window", l, r->check_window(l));
        if (ring_options_.checksum) add("ring_checksum", l, r->check_checksum(l));
    }
}

}  // namespace kvw
