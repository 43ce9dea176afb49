#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/cache/cache_layout.h"
#include "core/cache/kv_layout.h"
#include "core/cache/ring_layout.h"
#include "core/engine/transformer.h"
#include "core/gist/gist_net.h"
#include "core/gist/gist_record.h"
#include "core/mirror/layer_map.h"
#include "core/mirror/ledger.h"
#include "core/state/drift_report.h"
#include "core/state/invariant_result.h"
#include "core/state/invariant_summary.h"
#include "core/state/rope_policy.h"
#include "core/state/state_digest.h"

namespace kvw {

// Layers an edit applies to; empty means every layer (as in Action::layers).
using LayerSet = std::vector<int>;

struct StateOptions {
    // Rows per layer; 0: the model's max_context. Checked before anything is allocated
    // (checked_capacity: InvalidCapacity when negative, beyond the context or the budget).
    int64_t capacity = 0;
    RopePolicy policy = RopePolicy::FinalIndex;
    bool guard = true;  // re-check the cheap invariants after every primitive
    CacheLayout layout = CacheLayout::Contiguous;  // where the cache rows live (core/cache)
    // Bytes the cache may take; unset: default_cache_memory_budget().
    std::optional<uint64_t> memory_budget = std::nullopt;
    // Storage types of the cached K and V rows (docs/ARCHITECTURE.md §13).
    KvType k_type = KvType::F32;
    KvType v_type = KvType::F32;
    // Tokens per wLOD block (ARCHITECTURE §14): a level-1 gist stands for K tokens, a level-2
    // gist for K² tokens. 0: none chosen (wLOD never on), so a collapse is refused (WlodOff)
    // rather than cut with a K nobody asked for.
    int wlod_k = 0;
    // The ring layout's mode, sinks and block size (ARCHITECTURE §17); read when layout is Ring.
    RingOptions ring = {};
};

// The mirror part of the state that an aborted tick puts back (the ledger keeps every record):
// the ledger's standing as shared record chunks, and the maps through their journal, which
// keeps only what the edits after it change (ARCHITECTURE §6.1). One at a time per state; its
// end closes the journal, the edits since staying unless restore_mirror put them back.
class MirrorSnapshot {
public:
    MirrorSnapshot(const MirrorSnapshot&) = delete;
    MirrorSnapshot& operator=(const MirrorSnapshot&) = delete;
    ~MirrorSnapshot() { maps_.close_journal(); }

private:
    friend class StateManager;
    MirrorSnapshot(LayerMaps& maps, Ledger::Liveness liveness)
        : maps_(maps), liveness_(std::move(liveness)) {
        maps_.open_journal();
    }
    LayerMaps& maps_;
    Ledger::Liveness liveness_;
};

// The coupled cache + mirror ("a knife with two blades"): the only code that mutates a cache
// (KvLayout) or a pos2ledger. Every primitive validates its arguments (StateError /
// CapacityExceeded before anything changes), then changes the tensors, pos2ledger and rope_pos
// of the same layers at the same rows, then — in guard mode — re-checks the cheap invariants
// and throws StateError(InvariantViolated) when one fails.
class StateManager {
public:
    StateManager(const Transformer& engine, StateOptions options);
    // An exact copy of `other` (ledger, maps, cache rows and the layout's bookkeeping, the last
    // logits and attention mass, the gists) that computes with `engine`, an engine of the same
    // model; null: a detached copy that is only ever copied from (a session checkpoint,
    // ARCHITECTURE §16), its cache dormant (KvLayout::dormant_clone) and its maps frozen
    // (LayerMaps::frozen), sharing the blocks that did not change with `earlier`'s, the
    // detached copy made before it, if any. A detached copy's maps read as empty.
    StateManager(const StateManager& other, const Transformer* engine,
                 const StateManager* earlier = nullptr);

    // ---- primitives -------------------------------------------------------------------------
    // Writes the tokens after the last row of every layer (prefill and decode alike) and
    // returns the logits of the last one.
    const std::vector<float>& append(std::span<const int32_t> tokens, EntryKind kind, int64_t tick);
    // The ledger records `cause` (why, and the policy's score) for every layer the row leaves.
    void remove(const LayerSet& layers, int row, int64_t tick, RemovalCause cause = {});
    // K/V of the new rows come from the engine with each layer's rows [0, row) as context, at
    // the phases the policy gives (FinalIndex/Reindex: row + i; Original: the new ledger ids).
    void insert(const LayerSet& layers, int row, std::span<const int32_t> tokens, EntryKind kind,
                int64_t tick);
    // remove(p2), remove(p1), insert(p1, tokens) as Replacement; p1 < p2 validated up front.
    void replace_pair(const LayerSet& layers, int p1, int p2, std::span<const int32_t> tokens,
                      int64_t tick);
    // Empties the cache and every pos2ledger; records still live become Removed at `tick`.
    void reset(int64_t tick);

    // ---- ring layout (ARCHITECTURE §17; core/state/state_ring.cpp) ---------------------------
    // The ring layout, or null under any other layout.
    const RingLayout* ring() const;
    const RingOptions& ring_options() const { return ring_options_; }
    // Room for n rows appended next (one append, or a decode block appended row by row):
    // on a ring without n free rows the oldest ring rows of every layer leave as one range
    // (cache, pos2ledger, ledger reason RingOverwrite), so the ring advances once per block.
    // CapacityExceeded, nothing changed, when n rows do not fit: beside a ring's sinks, or in
    // the free rows of another layout (which never overwrites). append() calls it itself.
    void make_block_room(int n, int64_t tick);

    // ---- wLOD primitives (ARCHITECTURE §14; core/state/state_wlod.cpp) ----------------------
    // Replaces the K rows of the aligned whole block starting at `row` (level 1: K token rows;
    // level 2: the K² tokens starting at `row`, its token blocks collapsed to level-1 gists
    // first) by one gist row: a new EntryKind::Gist record at the central leaf's phase, its K/V
    // computed with rows [0, row) as context; the replaced records become Collapsed. Rows after
    // it keep their K/V (stale until recomputed, as after any edit). WlodShape when the rows
    // are not such a block, the policy is not final_index, or the level is not 1 or 2;
    // PinnedRow when the block holds a pinned row (pinned_rows). Nothing changes on either.
    void collapse(const LayerSet& layers, int row, int level, int64_t tick);
    // Replaces the gist row at `row` by its children (the same records, Live again, at their old
    // phases), their K/V computed with rows [0, row) as context: with that context unchanged
    // since the collapse, the rows come back bit for bit. WlodShape when the row is no gist.
    void expand(const LayerSet& layers, int row, int64_t tick);
    int wlod_k() const { return wlod_k_; }
    // Whether row 0 of `layer` holds the model's BOS token.
    bool starts_with_bos(int layer) const;
    // Rows [0, n) of `layer` that no collapse folds into a gist: row 0 when it holds BOS (the
    // model never saw a sequence that does not start with it, as for InsertBeforeBos) and a
    // ring's sink rows (kept exact on purpose: the attention sinks). Blocks start at their
    // first row, so a block holds a pinned row exactly when it starts before n.
    int pinned_rows(int layer) const;
    // Another block size: WlodShape when k < 2, or when k differs and a gist row is in some
    // layer (its span was cut with the old K; expand it first).
    void set_wlod_k(int k);
    // The first (layer, row) that holds a gist record, scanning layer by layer; nullopt: none.
    std::optional<std::pair<int, int>> first_gist_row() const;
    // The gist a record is, or null for a token record.
    const GistRecord* gist(int64_t id) const;
    // Whether any record is a gist (a collapse ever made one): without, every row is level 0.
    bool has_gists() const { return !gists_.empty(); }
    // Tokens a row stands for: 1, or K^level for a gist.
    int64_t leaf_count(int64_t id) const;
    void set_gist_net(std::shared_ptr<const GistNet> net) { gist_net_ = std::move(net); }
    const GistNet& gist_net() const { return *gist_net_; }

    // ---- numeric alignment ------------------------------------------------------------------
    // One forward pass per distinct (tokens, phases) list held by the layers; each layer gets
    // the K/V of the list it holds. Also refreshes last_logits().
    void rebuild_from_mirror();
    // Recomputes rows >= from_row of every layer with rows [0, from_row) as context; gives the
    // same cache as rebuild_from_mirror() when the rows before from_row are exact.
    void recompute_suffix(int from_row);
    // Against a fresh reference pass (no stored state is trusted): the cached rows decoded,
    // against the reference's float32 K/V. Unset tolerance: one step of the coarser of the
    // K and V storage types (kv_type_drift_tolerance).
    DriftReport measure_drift(std::optional<float> tolerance = std::nullopt) const;
    // That default: what the storage types' rounding alone can leave, relative to a row's norm.
    float default_drift_tolerance() const;

    // ---- structural alignment ---------------------------------------------------------------
    // The cheap invariants, one result per check and layer. ids_live, ids_unique and
    // rope_policy come from per-chunk summaries that only the chunks a command touched
    // recompute (InvariantSummary, ARCHITECTURE §6.1); when they say a check fails, the full
    // check says where.
    std::vector<InvariantResult> check_invariants() const;
    // The same, every row read: the reference check_invariants() is checked against.
    std::vector<InvariantResult> check_invariants_full() const;
    // How the incremental state digest or invariants differ from their from-scratch
    // references (state_hash_from_scratch, check_invariants_full); empty when they agree.
    // `form`: the digest's, as state_hash's.
    std::string incremental_difference(DigestForm form = {}) const;
    // A digest of the ledger, the maps and the cache's logical rows: equal states hash equal,
    // whatever the layout. Computed once per state: every mutating member starts with
    // changed(), and a second call before the next change returns the same value at no cost;
    // and then only the chunks of rows and records whose revisions moved are read again
    // (StateDigest, ARCHITECTURE §6.1). `form` says how it reads the brightness columns and
    // the blocks of rows: another than the default only for traces written before it.
    uint64_t state_hash(DigestForm form = {}) const;
    // The same digest with every chunk read anew: the reference state_hash() is checked against.
    uint64_t state_hash_from_scratch(DigestForm form = {}) const;
    // The hash traces written before the digest of digests recorded (stream_state_hash).
    uint64_t stream_state_hash() const;

    // ---- tick support -----------------------------------------------------------------------
    // Starts a snapshot of the mirror (the maps' journal opens); not a change of the state.
    MirrorSnapshot snapshot_mirror();
    // Puts the maps back and restores ledger liveness (see Ledger::restore_liveness); the cache
    // is not touched: call rebuild_from_mirror() afterwards.
    void restore_mirror(const MirrorSnapshot& snapshot, int64_t tick);

    // ---- read access ------------------------------------------------------------------------
    // The engine the state computes with; a detached copy (see below) has none.
    const Transformer& engine() const { return *engine_; }
    // Milliseconds the engine's forward passes for this state took, summed since it was made:
    // what a tick's Step 4 spends beside its bookkeeping (StepTimings::forward_ms).
    double forward_ms() const { return forward_ms_; }
    const Ledger& ledger() const { return ledger_; }
    const LayerMap& layer_map(int layer) const { return maps_.at(size_t(layer)); }
    // What the engine attends over in `layer`: its first `rows` cache rows with their rope
    // positions (a layer with a sliding window measures reach by them).
    LayerContext context_view(int layer, int rows) const;
    // Every layer's context_view of its rows [0, min(row, rows(l))): what a record written at
    // `row` attends over.
    std::vector<LayerContext> context_before(int row) const;
    // Every layer's context_view of all its rows: what an append attends over.
    std::vector<LayerContext> whole_context() const;
    // Every map with its revisions, new whenever a chunk of a layer's rows changes and unique
    // across the process (LayerMaps): a Frame shares the chunks that kept theirs (FrameSharing).
    const LayerMaps& layer_maps() const { return maps_; }
    const KvLayout& cache() const { return *cache_; }
    int n_layers() const { return cache_->n_layers(); }
    int rows(int layer) const { return layer_map(layer).rows(); }
    // The rope position the next appended token takes (after layer 0's rows, or its record id
    // under RopePolicy::Original): where a sliding window's reach is measured from.
    int32_t next_position() const;
    std::vector<int32_t> tokens(int layer) const;  // the mirror's token ids of a layer's rows
    RopePolicy policy() const { return policy_; }
    bool guard() const { return guard_; }
    void set_guard(bool on) { guard_ = on; }
    // Switches the RoPE position policy: every row gets the phase the new policy gives it
    // (switching to FinalIndex: its row index, as if written now), then the cache is rebuilt
    // from the mirror.
    void set_policy(RopePolicy policy);
    // Moves the cache to another layout, copying every layer's logical rows; the state hash
    // stays the same. Both caches are held for the length of the copy.
    void set_layout(CacheLayout layout);
    // The same, with the ring's options (a live ring moves to new options the same way) and,
    // when `capacity` != 0, another capacity (a ring's T): checked before anything is allocated
    // (checked_capacity with the new layout's scratch and shadow: InvalidCapacity; RingError
    // for options that do not fit it) and CapacityExceeded when a layer holds more rows than
    // it. Nothing changes when any check fails.
    void set_layout(CacheLayout layout, const RingOptions& ring, int64_t capacity = 0);
    // Stores K and V in other types: every logical row is decoded and encoded again in a new
    // cache of the same layout and capacity (checked against the memory budget first; a stale
    // row stays stale). Both caches are held for the length of the copy.
    void set_kv_types(KvType k, KvType v);
    const std::vector<float>& last_logits() const { return last_logits_; }
    // [layer][row]: the attention weight each row received from the last append's queries
    // (summed over heads and queries); empty once a primitive moved, added or removed rows or
    // the mirror was put back, because the rows it was measured on are gone. A recompute that
    // keeps every row in place (recompute_suffix, rebuild_from_mirror, set_policy, set_layout,
    // set_kv_types) keeps it.
    const std::vector<std::vector<float>>& last_attention_mass() const {
        return last_attention_mass_;
    }
    void set_brightness(int layer, std::span<const int64_t> ids, std::span<const float> values) {
        changed();
        ledger_.set_brightness(layer, ids, values);
    }
    // Every row of `layer`: its record's brightness := next(row, brightness), in one pass;
    // the values before go to `before` (Ledger::update_brightness).
    template <typename Next>
    void update_brightness(int layer, Next next, std::vector<float>& before) {
        changed();
        ledger_.update_brightness(layer, layer_map(layer).pos2ledger, next, &before);
    }

    // ---- faults on purpose (the `desync` and `fault` commands) -------------------------------
    // Points a row of one layer's pos2ledger at another record without touching the cache, so
    // that the invariants (and the views that show them) go red.
    void debug_desync_row(int layer, int row);
    // The k-th primitive started from now (1-based; 0 disables) throws
    // StateError(InjectedFault) after it changed the cache and before it changed the mirror
    // (armed by the Session for one action list: core/session/fault_scope.h).
    void inject_fault_at(int k);

private:
    // Called first by every member that mutates the state (see state_hash()).
    void changed() { ++revision_; }
    std::vector<int> resolve_layers(const LayerSet& layers, const char* primitive) const;
    void validate_tokens(std::span<const int32_t> tokens, const char* primitive) const;
    std::vector<int64_t> add_records(std::span<const int32_t> tokens, EntryKind kind, int64_t tick);
    std::vector<int32_t> new_phases(int row, std::span<const int64_t> ids) const;
    void between_blades(const char* primitive);
    void end_primitive(const std::vector<int>& layers, const char* primitive);
    void reindex_layer(int layer);
    // The ring checks, one result per check and layer (check_invariants appends them).
    void check_ring(std::vector<InvariantResult>& out) const;
    // ids_live, ids_unique and rope_policy per layer, every row read.
    struct RowChecks {
        std::vector<InvariantResult> ids_live, ids_unique, rope_policy;  // [layer]
    };
    RowChecks row_checks_full() const;
    // Every invariant's result, in the panel's order, with these per-row checks.
    std::vector<InvariantResult> invariant_results(RowChecks checks) const;
    void do_remove(const std::vector<int>& layers, int row, int64_t tick, RemovalCause cause);
    void do_insert(const std::vector<int>& layers, int row, std::span<const int32_t> tokens,
                   EntryKind kind, int64_t tick);
    // A row's identity for the reference passes: its token id, or -2 - id for a gist record.
    std::vector<int64_t> row_keys(int layer) const;
    Item item_of_key(int64_t key) const;
    // wLOD helpers (state_wlod.cpp).
    int64_t leaf_offset(int layer, int row) const;
    // The rows the level-`level` block starting at `row` spans; WlodShape when it is none.
    int check_block(int layer, int row, int level, const char* primitive) const;
    void collapse_group(const std::vector<int>& layers, int row, int level, int64_t tick);
    void expand_group(const std::vector<int>& layers, int row, int64_t tick);
    // K/V of records written at `row` with each layer's rows [0, row) as context.
    ForwardOutput forward_records(int row, std::span<const int64_t> ids,
                                  std::span<const int32_t> phases) const;
    // The reference K/V of every layer for rows >= from_row (see recompute_suffix), where the
    // engine's backend computed them.
    struct Recompute {
        std::vector<int> first_row;  // [layer]: rows before it were reused as context
        // The forward passes, one per group of layers holding the same rows, and the pass of
        // each layer (-1: none, its rows from first_row on are none).
        std::vector<ForwardOutput> passes;
        std::vector<int> pass;
        std::vector<float> logits;  // of the last row of layer 0's list, if computed
        const ForwardOutput& of(int layer) const { return passes[size_t(pass[size_t(layer)])]; }
    };
    Recompute reference(int from_row) const;
    // engine_->forward, its time added to forward_ms_.
    ForwardOutput run_forward(std::span<const Item> items, std::span<const int32_t> positions,
                              std::span<const LayerContext> context,
                              const ForwardOptions& options) const;

    const Transformer* engine_;
    RopePolicy policy_;
    bool guard_;
    Ledger ledger_;
    LayerMaps maps_;
    std::optional<uint64_t> memory_budget_;
    RingOptions ring_options_;
    std::unique_ptr<KvLayout> cache_;
    std::vector<float> last_logits_;
    std::vector<std::vector<float>> last_attention_mass_;
    int fault_countdown_ = 0;
    int wlod_k_ = 0;
    std::shared_ptr<const GistNet> gist_net_ = default_gist_net();
    std::unordered_map<int64_t, GistRecord> gists_;  // by ledger id
    uint64_t revision_ = 0;                          // mutations so far
    mutable uint64_t hashed_revision_ = ~uint64_t(0);
    mutable uint64_t hash_ = 0;  // state_hash() at hashed_revision_
    mutable double forward_ms_ = 0;
    mutable DigestForm hashed_form_;              // ... made so
    mutable StateDigest digest_;                  // the chunk digests hash_ was combined from
    mutable InvariantSummary invariant_summary_;  // check_invariants' chunk summaries
};

}  // namespace kvw
