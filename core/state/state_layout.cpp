// Moving a live state to another cache layout or storage types.
#include <algorithm>

#include "core/cache/cache_capacity.h"
#include "core/cache/cache_error.h"
#include "core/state/state_manager.h"

namespace kvw {

void StateManager::set_layout(CacheLayout layout) { set_layout(layout, ring_options_); }

void StateManager::set_layout(CacheLayout layout, const RingOptions& ring, int64_t capacity) {
    changed();
    const int64_t rows_per_layer = capacity != 0 ? capacity : cache_->capacity();
    if (layout == cache_->layout() && rows_per_layer == cache_->capacity() &&
        (layout != CacheLayout::Ring || ring == ring_options_))
        return;
    const ModelConfig& c = engine_->model().config;
    const int checked = checked_capacity(rows_per_layer, c.max_context, c.n_layers, c.kv_dim(),
                                         memory_budget_.value_or(default_cache_memory_budget()),
                                         cache_->storage(), layout, ring);
    for (int l = 0; l < n_layers(); ++l)
        if (rows(l) > checked) throw CapacityExceeded(l, 0, rows(l), checked);
    auto next = make_kv_layout(layout, cache_->n_layers(), cache_->kv_dim(), checked,
                               cache_->storage(), ring, cache_->device());
    // The logical rows are copied as they are stored, stale ones included: a layout is where
    // rows live, not what they hold, so the state hash does not change.
    for (int l = 0; l < cache_->n_layers(); ++l) next->append_stored(l, *cache_);
    ring_options_ = ring;
    cache_ = std::move(next);
}

void StateManager::set_kv_types(KvType k, KvType v) {
    changed();
    const KvStorage storage{k, v, cache_->storage().groups};
    if (k == cache_->storage().k && v == cache_->storage().v) return;
    const ModelConfig& c = engine_->model().config;
    checked_capacity(cache_->capacity(), c.max_context, c.n_layers, c.kv_dim(),
                     memory_budget_.value_or(default_cache_memory_budget()), storage,
                     cache_->layout(), ring_options_);
    auto next = make_kv_layout(cache_->layout(), cache_->n_layers(), cache_->kv_dim(),
                               cache_->capacity(), storage, ring_options_, cache_->device());
    // Decoded and encoded again in runs: a read and a write of the device each.
    constexpr int kRunRows = 1024;
    std::vector<float> k_rows(size_t(kRunRows) * size_t(cache_->kv_dim())), v_rows(k_rows.size());
    for (int l = 0; l < cache_->n_layers(); ++l)
        for (int r = 0; r < cache_->rows(l); r += kRunRows) {
            const int n = std::min(kRunRows, cache_->rows(l) - r);
            cache_->read_rows(l, r, n, k_rows.data(), v_rows.data());
            next->append(l, k_rows.data(), v_rows.data(), n);
        }
    cache_ = std::move(next);
}

}  // namespace kvw
