#include "core/state/state_manager.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "core/cache/cache_capacity.h"
#include "core/math/rope.h"
#include "core/state/finite_check.h"
#include "core/state/state_error.h"

namespace kvw {

namespace {

std::vector<Item> items_of(std::span<const int32_t> tokens) {
    std::vector<Item> items;
    items.reserve(tokens.size());
    for (int32_t t : tokens) items.push_back(Item::of_token(t));
    return items;
}

KvStorage storage_of(const StateOptions& options, const ModelConfig& config) {
    return KvStorage{options.k_type, options.v_type, config.n_kv_heads};
}

int cache_capacity(const StateOptions& options, const ModelConfig& config) {
    return checked_capacity(options.capacity != 0 ? options.capacity : config.max_context,
                            config.max_context, config.n_layers, config.kv_dim(),
                            options.memory_budget.value_or(default_cache_memory_budget()),
                            storage_of(options, config), options.layout, options.ring);
}

}  // namespace

StateManager::StateManager(const Transformer& engine, StateOptions options)
    : engine_(&engine),
      policy_(options.policy),
      guard_(options.guard),
      ledger_(engine.model().config.n_layers),
      maps_(size_t(engine.model().config.n_layers)),
      memory_budget_(options.memory_budget),
      ring_options_(options.ring),
      cache_(make_kv_layout(
          options.layout, engine.model().config.n_layers, engine.model().config.kv_dim(),
          cache_capacity(options, engine.model().config),
          storage_of(options, engine.model().config), options.ring, engine.backend().kv_rows())),
      wlod_k_(options.wlod_k) {
    if (wlod_k_ != 0 && wlod_k_ < 2)
        throw StateError(StateErrorKind::WlodShape, "options",
                         "wlod_k " + std::to_string(wlod_k_) + " is neither 0 (none) nor >= 2");
}

StateManager::StateManager(const StateManager& other, const Transformer* engine,
                           const StateManager* earlier)
    : engine_(engine),
      policy_(other.policy_),
      guard_(other.guard_),
      ledger_(other.ledger_),
      maps_(engine ? (other.maps_.is_frozen() ? other.maps_.thawed() : other.maps_)
                   : other.maps_.frozen(earlier ? &earlier->maps_ : nullptr)),
      memory_budget_(other.memory_budget_),
      ring_options_(other.ring_options_),
      cache_(engine ? other.cache_->clone(engine->backend().kv_rows())
                    : other.cache_->dormant_clone(earlier ? earlier->cache_.get() : nullptr)),
      last_logits_(other.last_logits_),
      last_attention_mass_(other.last_attention_mass_),
      fault_countdown_(other.fault_countdown_),
      wlod_k_(other.wlod_k_),
      gist_net_(other.gist_net_),
      gists_(other.gists_),
      // Their chunk summaries hold for the copy: the revisions are copied too.
      digest_(other.digest_),
      invariant_summary_(other.invariant_summary_) {}

std::vector<int32_t> StateManager::tokens(int layer) const {
    std::vector<int32_t> out;
    for (int64_t id : layer_map(layer).pos2ledger) out.push_back(ledger_.at(id).token_id);
    return out;
}

// ---- validation -------------------------------------------------------------------------------

std::vector<int> StateManager::resolve_layers(const LayerSet& layers, const char* primitive) const {
    std::vector<int> out;
    if (layers.empty()) {
        for (int l = 0; l < n_layers(); ++l) out.push_back(l);
        return out;
    }
    for (int l : layers)
        if (l < 0 || l >= n_layers())
            throw StateError(StateErrorKind::LayerOutOfRange, primitive,
                             "layer " + std::to_string(l) + " of " + std::to_string(n_layers()));
    out = layers;
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

void StateManager::validate_tokens(std::span<const int32_t> tokens, const char* primitive) const {
    if (tokens.empty()) throw StateError(StateErrorKind::NoItems, primitive, "no tokens given");
    const int vocab = engine_->model().config.vocab_size;
    for (size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i] < 0 || tokens[i] >= vocab)
            throw StateError(StateErrorKind::TokenOutOfVocabulary, primitive,
                             "token " + std::to_string(i) + " is " + std::to_string(tokens[i]) +
                                 ", vocabulary size " + std::to_string(vocab));
}

namespace {

void check_row(const char* primitive, int layer, int row, int limit) {
    if (row < 0 || row > limit)
        throw StateError(StateErrorKind::RowOutOfRange, primitive,
                         "row " + std::to_string(row) + " outside [0, " + std::to_string(limit) +
                             "] in layer " + std::to_string(layer));
}

}  // namespace

// ---- shared steps -----------------------------------------------------------------------------

std::vector<int64_t> StateManager::add_records(std::span<const int32_t> tokens, EntryKind kind,
                                               int64_t tick) {
    std::vector<int64_t> ids;
    for (int32_t t : tokens)
        ids.push_back(ledger_.add(kind, t, engine_->model().tokenizer.piece_text(t), tick));
    return ids;
}

std::vector<int32_t> StateManager::new_phases(int row, std::span<const int64_t> ids) const {
    std::vector<int32_t> phases;
    for (size_t i = 0; i < ids.size(); ++i)
        phases.push_back(policy_ == RopePolicy::Original ? int32_t(ids[i]) : int32_t(row + i));
    return phases;
}

int32_t StateManager::next_position() const {
    const int64_t next_id = ledger_.size();
    return new_phases(rows(0), std::span<const int64_t>(&next_id, 1)).front();
}

// Every primitive passes here exactly once, after the cache blade and before the mirror blade:
// the one place where a failure leaves the two apart.
void StateManager::between_blades(const char* primitive) {
    if (fault_countdown_ > 0 && --fault_countdown_ == 0)
        throw StateError(StateErrorKind::InjectedFault, primitive,
                         "fault injected after the cache changed, before the mirror did");
}

void StateManager::end_primitive(const std::vector<int>& layers, const char* primitive) {
    if (policy_ == RopePolicy::Reindex)
        for (int l : layers) reindex_layer(l);
    if (!guard_) return;
    for (const InvariantResult& r : check_invariants())
        if (!r.passed)
            throw StateError(StateErrorKind::InvariantViolated, primitive,
                             r.name + " in layer " + std::to_string(r.layer) + " row " +
                                 std::to_string(r.row) + ": " + r.detail);
}

// The K-shift: a row whose phase is not its index is rotated by the difference. A quantised K
// is decoded, rotated and encoded again (new scales), as a kernel doing the shift in place would.
void StateManager::reindex_layer(int layer) {
    const ModelConfig& c = engine_->model().config;
    LayerMap& map = maps_.edit(size_t(layer));
    std::vector<int32_t> delta(size_t(map.rows()));
    for (int r = 0; r < map.rows(); ++r) delta[size_t(r)] = r - map.rope_pos[size_t(r)];
    cache_->rerotate_k(layer, delta, c.head_dim, engine_->rope());  // where the rows are
    for (int r = 0; r < map.rows(); ++r) map.rope_pos[size_t(r)] = r;
}

void StateManager::do_remove(const std::vector<int>& layers, int row, int64_t tick,
                             RemovalCause cause) {
    last_attention_mass_.clear();
    for (int l : layers) cache_->remove(l, row);
    between_blades("remove");
    for (int l : layers) {
        const int64_t id = maps_[size_t(l)].pos2ledger[size_t(row)];
        maps_.edit(size_t(l), row).remove(row);
        ledger_.mark_removed(id, l, tick, cause);
    }
}

LayerContext StateManager::context_view(int layer, int rows) const {
    LayerContext ctx = cache_->view(layer, rows);
    ctx.positions = layer_map(layer).rope_pos.data();
    return ctx;
}

ForwardOutput StateManager::run_forward(std::span<const Item> items,
                                        std::span<const int32_t> positions,
                                        std::span<const LayerContext> context,
                                        const ForwardOptions& options) const {
    // The new rows go to the cache where the backend made them (ForwardOutput::rows): the
    // cache must live on the backend's device.
    if (&cache_->device() != &engine_->backend().kv_rows())
        throw std::logic_error("StateManager: the cache lives on device '" +
                               std::string(cache_->device().name()) + "', the engine's backend '" +
                               std::string(engine_->backend().name()) + "' computes elsewhere");
    const auto start = std::chrono::steady_clock::now();
    ForwardOutput out = engine_->forward(items, positions, context, options);
    forward_ms_ +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return out;
}

std::vector<LayerContext> StateManager::context_before(int row) const {
    std::vector<LayerContext> context;
    for (int l = 0; l < n_layers(); ++l) context.push_back(context_view(l, std::min(row, rows(l))));
    return context;
}

std::vector<LayerContext> StateManager::whole_context() const {
    std::vector<LayerContext> context;
    for (int l = 0; l < n_layers(); ++l) context.push_back(context_view(l, rows(l)));
    return context;
}

void StateManager::do_insert(const std::vector<int>& layers, int row,
                             std::span<const int32_t> tokens, EntryKind kind, int64_t tick) {
    last_attention_mass_.clear();
    const std::vector<int64_t> ids = add_records(tokens, kind, tick);
    const std::vector<int32_t> phases = new_phases(row, ids);
    const std::vector<Item> items = items_of(tokens);
    ForwardOutput out =
        run_forward(items, phases, context_before(row), ForwardOptions{false, false});
    require_finite(
        out, "insert",
        "the " + std::to_string(tokens.size()) + " inserted row(s) at row " + std::to_string(row));
    const int n = int(tokens.size());
    for (int l : layers) cache_->insert(l, row, out.rows(l), n);
    between_blades("insert");
    for (int l : layers) {
        maps_.edit(size_t(l), row).insert(row, ids, phases);
        for (int64_t id : ids) ledger_.mark_live(id, l);
    }
}

// ---- primitives -------------------------------------------------------------------------------

const std::vector<float>& StateManager::append(std::span<const int32_t> tokens, EntryKind kind,
                                               int64_t tick) {
    changed();
    validate_tokens(tokens, "append");
    const int n = int(tokens.size());
    make_block_room(n, tick);

    const std::vector<int64_t> ids = add_records(tokens, kind, tick);
    const std::vector<int32_t> phases = new_phases(rows(0), ids);
    const std::vector<Item> items = items_of(tokens);
    ForwardOutput out = run_forward(items, phases, whole_context(), ForwardOptions{true, true});
    require_finite(out, "append", "the " + std::to_string(n) + " appended row(s)");
    for (int l = 0; l < n_layers(); ++l) cache_->append(l, out.rows(l), n);
    between_blades("append");
    std::vector<int> all;
    for (int l = 0; l < n_layers(); ++l) {
        const int end = rows(l);
        maps_.edit(size_t(l), end).insert(end, ids, phases);
        for (int64_t id : ids) ledger_.mark_live(id, l);
        all.push_back(l);
    }
    last_logits_ = std::move(out.logits);
    last_attention_mass_ = std::move(out.attention_mass);
    end_primitive(all, "append");
    return last_logits_;
}

void StateManager::remove(const LayerSet& layer_set, int row, int64_t tick, RemovalCause cause) {
    changed();
    const std::vector<int> layers = resolve_layers(layer_set, "remove");
    for (int l : layers) check_row("remove", l, row, rows(l) - 1);
    do_remove(layers, row, tick, cause);
    end_primitive(layers, "remove");
}

void StateManager::insert(const LayerSet& layer_set, int row, std::span<const int32_t> tokens,
                          EntryKind kind, int64_t tick) {
    changed();
    const std::vector<int> layers = resolve_layers(layer_set, "insert");
    validate_tokens(tokens, "insert");
    for (int l : layers) {
        check_row("insert", l, row, rows(l));
        cache_->check_room(l, int(tokens.size()));
    }
    do_insert(layers, row, tokens, kind, tick);
    end_primitive(layers, "insert");
}

void StateManager::replace_pair(const LayerSet& layer_set, int p1, int p2,
                                std::span<const int32_t> tokens, int64_t tick) {
    changed();
    const std::vector<int> layers = resolve_layers(layer_set, "replace_pair");
    validate_tokens(tokens, "replace_pair");
    if (p1 >= p2)
        throw StateError(
            StateErrorKind::PairOrder, "replace_pair",
            "pos1 " + std::to_string(p1) + " is not before pos2 " + std::to_string(p2));
    const int grow = int(tokens.size()) - 2;
    for (int l : layers) {
        check_row("replace_pair", l, p1, rows(l) - 1);
        check_row("replace_pair", l, p2, rows(l) - 1);
        if (grow > 0) cache_->check_room(l, grow);
    }
    const RemovalCause replaced{RemovalReason::Replaced, std::nullopt};
    do_remove(layers, p2, tick, replaced);
    end_primitive(layers, "remove");
    do_remove(layers, p1, tick, replaced);
    end_primitive(layers, "remove");
    do_insert(layers, p1, tokens, EntryKind::Replacement, tick);
    end_primitive(layers, "insert");
}

void StateManager::reset(int64_t tick) {
    changed();
    cache_->reset();
    for (int l = 0; l < n_layers(); ++l) {
        for (int64_t id : maps_[size_t(l)].pos2ledger)
            ledger_.mark_removed(id, l, tick, {RemovalReason::Reset, std::nullopt});
        maps_.edit(size_t(l)).clear();
    }
    last_logits_.clear();
    last_attention_mass_.clear();
}

// ---- tick support -----------------------------------------------------------------------------

MirrorSnapshot StateManager::snapshot_mirror() { return MirrorSnapshot(maps_, ledger_.liveness()); }

void StateManager::restore_mirror(const MirrorSnapshot& snapshot, int64_t tick) {
    changed();
    // The rows go back to where they were before the mass was measured (or a later one).
    last_attention_mass_.clear();
    maps_.roll_back();
    ledger_.restore_liveness(snapshot.liveness_, tick);
}

void StateManager::inject_fault_at(int k) { fault_countdown_ = std::max(k, 0); }

}  // namespace kvw
