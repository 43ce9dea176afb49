// The immutable snapshot the UI draws (ARCHITECTURE §6).
#include <algorithm>
#include <cstdio>

#include "core/session/session.h"

namespace kvw {

namespace {

ModelSummary summary_of(const Model& model) {
    const ModelConfig& c = model.config;
    return {model.source, model.file_type, c.architecture, c.n_layers,    c.n_embd,
            c.n_heads,    c.n_kv_heads,    c.vocab_size,   c.layer_window};
}

}  // namespace

std::shared_ptr<Frame> Session::frame() const {
    auto f = std::make_shared<Frame>();
    f->tick = tick_;
    f->state_hash = state_hash();
    f->model = summary_of(*model_);
    f->tokenizer = std::shared_ptr<const Tokenizer>(model_, &model_->tokenizer);
    f->backend = std::string(backend_->name());
    if (const BackendDevice d = backend_->device(); d.memory_total > 0) {
        char memory[64];
        std::snprintf(memory, sizeof memory, ", %.1f of %.1f GiB in use",
                      double(d.memory_used) / double(1ull << 30),
                      double(d.memory_total) / double(1ull << 30));
        f->device = d.name + memory;
    }
    f->capacity = state_->cache().capacity();
    f->layout = state_->cache().layout();
    f->ring_options = state_->ring_options();
    f->k_type = kv_type_name(state_->cache().storage().k);
    f->v_type = kv_type_name(state_->cache().storage().v);
    f->rope_policy = options_.rope_policy;
    f->proposer = options_.proposer;
    f->policy = options_.policy;
    f->selection = proposer_->selection();
    f->guard = options_.guard;
    f->prompt = prompt_;
    f->next_position = state_->next_position();
    f->undo_depth = undo_depth();
    f->redo_depth = redo_depth();
    f->snapshots = snapshot_names();
    if (wlod_) {
        f->wlod_k = state_->wlod_k();
        f->wlod_max = options_.wlod_max;
        for (int l = 0; l < state_->n_layers(); ++l) {
            WlodTree tree = wlod_->tree(*state_, l);
            WlodLayerFrame wf;
            for (int level = 0; level < 3; ++level) {
                wf.levels[level] = std::move(tree.level(level));
                for (WlodNode& n : wf.levels[level]) n.gist.clear();
            }
            wf.last = wlod_->last_invalidation(l);
            f->wlod.push_back(std::move(wf));
        }
    }

    const Ledger& ledger = state_->ledger();
    f->ledger = frame_sharing_.ledger(ledger);

    for (int l = 0; l < state_->n_layers(); ++l) {
        LayerFrame layer;
        layer.pos2ledger = frame_sharing_.pos2ledger(state_->layer_maps(), l);
        layer.rope_pos = frame_sharing_.rope_pos(state_->layer_maps(), l);
        layer.record_brightness = ChunkedRecords<float>(
            ledger.brightness_spine(l), size_t(ledger.size()), size_t(Ledger::kChunkRecords));
        if (drift_current_ && size_t(l) < drift_.layers.size()) {
            const LayerDrift& d = drift_.layers[size_t(l)];
            for (size_t r = 0; r < d.k.size(); ++r) {
                layer.drift.push_back(std::max(d.k[r], d.v[r]));
                f->max_drift = std::max(f->max_drift, layer.drift.back());
            }
            layer.first_stale_row = d.first_stale_row;
        }
        layer.k_stats = state_->cache().k_stats(l);
        layer.v_stats = state_->cache().v_stats(l);
        layer.nonfinite_scales = state_->cache().nonfinite_scales(l);
        if (const RingLayout* ring = state_->ring()) layer.ring = ring_frame(*ring, l);
        layer.pinned_rows = state_->pinned_rows(l);
        f->layers.push_back(std::move(layer));
    }
    f->drift_measured = drift_current_;
    f->first_diverging_layer = drift_current_ ? drift_.first_diverging_layer : -1;
    f->drift_tolerance = drift_current_ ? drift_.tolerance : state_->default_drift_tolerance();

    f->invariants = invariants_.statuses();
    f->injected = injected_;
    f->last_actions = last_actions_;
    f->last_given_index = last_given_index_;
    f->brightness_max = options_.brightness.max;
    f->last_result = last_result_;
    f->last_error = last_error_;
    f->timings = timings_;
    return f;
}

}  // namespace kvw
