// Structural alignment: the cheap invariants, the state hash and the test hooks that break them.
#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <utility>

#include "core/cache/kv_storage.h"
#include "core/state/state_error.h"
#include "core/state/state_manager.h"
#include "core/state/stream_hash.h"

namespace kvw {

namespace {

InvariantResult failed(std::string name, int layer, int row, std::string detail) {
    return InvariantResult{std::move(name), false, layer, row, std::move(detail)};
}

InvariantResult passed(std::string name, int layer) {
    return InvariantResult{std::move(name), true, layer, -1, {}};
}

// [layer] records of the ledger live in each layer, in one pass over the records: a pass per
// layer read every record's status vector 22 times at 100,000 records.
std::vector<int64_t> live_per_layer(const Ledger& ledger, int n_layers) {
    std::vector<int64_t> live(size_t(n_layers), 0);
    for (const LedgerEntry& e : ledger.entries())
        for (size_t l = 0; l < live.size() && l < e.status.size(); ++l)
            live[l] += e.status[l] == RowStatus::Live;
    return live;
}

// ids_live's first half for every layer: each row names a record live in its layer. Row by
// row across layers, so that a record's status vector is read once per row, not once per
// layer (the layers mostly hold the same record at the same row).
std::vector<InvariantResult> rows_hold_live_records(const LayerMaps& maps, const Ledger& ledger) {
    std::vector<InvariantResult> live;
    int longest = 0;
    for (size_t l = 0; l < maps.size(); ++l) {
        live.push_back(passed("ids_live", int(l)));
        longest = std::max(longest, maps[l].rows());
    }
    const Ledger::Entries entries = ledger.entries();
    for (int r = 0; r < longest; ++r) {
        for (size_t l = 0; l < maps.size(); ++l) {
            if (!live[l].passed || r >= maps[l].rows()) continue;
            const int64_t id = maps[l].pos2ledger[size_t(r)];
            if (!ledger.contains(id))
                live[l] = failed("ids_live", int(l), r, "no ledger record " + std::to_string(id));
            else if (entries[size_t(id)].status[l] != RowStatus::Live)
                live[l] = failed("ids_live", int(l), r,
                                 "record " + std::to_string(id) + " is not live in this layer");
        }
    }
    return live;
}

// The first record held by two rows, in the order a sort of (id, row) pairs meets them: the
// smallest such id, at the later of its first two rows. -1 when every id is held once. Ids
// outside the ledger (ids_live reports them) are left to a sort. `first_row` has an entry per
// ledger record, all kUnseen, and is left so: one table serves every layer of a check instead
// of a ledger-sized allocation per layer and tick.
constexpr int kUnseen = -1;
std::pair<int64_t, int> first_duplicate(std::span<const int64_t> ids, std::vector<int>& first_row) {
    const int64_t ledger_size = int64_t(first_row.size());
    const bool in_ledger = std::all_of(ids.begin(), ids.end(),
                                       [&](int64_t id) { return id >= 0 && id < ledger_size; });
    std::pair<int64_t, int> found{-1, -1};
    if (!in_ledger) {
        std::vector<std::pair<int64_t, int>> sorted;
        for (size_t r = 0; r < ids.size(); ++r) sorted.emplace_back(ids[r], int(r));
        std::sort(sorted.begin(), sorted.end());
        for (size_t i = 1; i < sorted.size(); ++i)
            if (sorted[i].first == sorted[i - 1].first) return {sorted[i].first, sorted[i].second};
        return found;
    }
    for (size_t r = 0; r < ids.size(); ++r) {  // O(rows), not n log n
        constexpr int kCounted = -2;           // later rows of a duplicate do not count
        int& first = first_row[size_t(ids[r])];
        if (first == kUnseen) {
            first = int(r);
        } else if (first != kCounted) {  // its second row: a duplicate
            if (found.first < 0 || ids[r] < found.first) found = {ids[r], int(r)};
            first = kCounted;
        }
    }
    for (int64_t id : ids) first_row[size_t(id)] = kUnseen;
    return found;
}

}  // namespace

StateManager::RowChecks StateManager::row_checks_full() const {
    RowChecks checks;
    const std::vector<int64_t> live_records = live_per_layer(ledger_, n_layers());
    checks.ids_live = rows_hold_live_records(maps_, ledger_);
    std::vector<int> first_row(size_t(ledger_.size()), kUnseen);  // first_duplicate's table
    for (int l = 0; l < n_layers(); ++l) {
        const LayerMap& map = maps_[size_t(l)];
        const int n = map.rows();

        InvariantResult& live = checks.ids_live[size_t(l)];
        if (live.passed) {
            const int64_t held = live_records[size_t(l)];
            if (held != n)
                live = failed("ids_live", l, -1,
                              "ledger has " + std::to_string(held) +
                                  " records live in this layer, pos2ledger " + std::to_string(n) +
                                  " rows");
        }

        const auto [twice, row] = first_duplicate(map.pos2ledger, first_row);
        checks.ids_unique.push_back(
            twice < 0
                ? passed("ids_unique", l)
                : failed("ids_unique", l, row, "record " + std::to_string(twice) + " held twice"));

        InvariantResult rope = passed("rope_policy", l);
        for (int r = 0; r < std::min(n, int(map.rope_pos.size())) && rope.passed; ++r) {
            const int32_t phase = map.rope_pos[size_t(r)];
            const bool ok = policy_ == RopePolicy::Reindex ? phase == r
                            : policy_ == RopePolicy::Original
                                ? phase == map.pos2ledger[size_t(r)]
                                : phase >= 0 && phase < cache_->capacity();
            if (!ok)
                rope = failed("rope_policy", l, r,
                              std::string(rope_policy_name(policy_)) + ": phase " +
                                  std::to_string(phase) + " at row " + std::to_string(r));
        }
        checks.rope_policy.push_back(rope);
    }
    return checks;
}

std::vector<InvariantResult> StateManager::invariant_results(RowChecks checks) const {
    std::vector<InvariantResult> out;
    const KvStorage& storage = cache_->storage();
    const bool scaled = kv_type_scaled(storage.k) || kv_type_scaled(storage.v);
    const std::string no_scales = std::string("K ") + kv_type_name(storage.k) + " and V " +
                                  kv_type_name(storage.v) + " keep no scales";
    for (int l = 0; l < n_layers(); ++l) {
        const LayerMap& map = maps_[size_t(l)];
        const int n = map.rows();

        if (cache_->rows(l) != n || int(map.rope_pos.size()) != n)
            out.push_back(failed("rows_aligned", l, -1,
                                 "cache " + std::to_string(cache_->rows(l)) + " rows, pos2ledger " +
                                     std::to_string(n) + ", rope_pos " +
                                     std::to_string(map.rope_pos.size())));
        else
            out.push_back(passed("rows_aligned", l));

        // An int8 / FP8 row decodes through its scales: a NaN or infinite one spoils the row.
        const int64_t bad_scales = cache_->nonfinite_scales(l);
        out.push_back(bad_scales == 0
                          ? passed("scales_finite", l)
                          : failed("scales_finite", l, -1,
                                   std::to_string(bad_scales) + " scales are NaN or infinite"));
        if (!scaled) out.back().not_applicable = no_scales;

        out.push_back(std::move(checks.ids_live[size_t(l)]));
        out.push_back(std::move(checks.ids_unique[size_t(l)]));
        out.push_back(std::move(checks.rope_policy[size_t(l)]));
    }
    check_ring(out);
    return out;
}

std::vector<InvariantResult> StateManager::check_invariants() const {
    if (!invariant_summary_.rows_hold(ledger_, maps_, policy_, cache_->capacity()))
        return check_invariants_full();  // which check fails, and where
    RowChecks checks;
    for (int l = 0; l < n_layers(); ++l) {
        checks.ids_live.push_back(passed("ids_live", l));
        checks.ids_unique.push_back(passed("ids_unique", l));
        checks.rope_policy.push_back(passed("rope_policy", l));
    }
    return invariant_results(std::move(checks));
}

std::vector<InvariantResult> StateManager::check_invariants_full() const {
    return invariant_results(row_checks_full());
}

namespace {

std::string described(const InvariantResult& r) {
    return r.name + " at layer " + std::to_string(r.layer) + " row " + std::to_string(r.row) +
           (r.passed ? " passes" : " fails");
}

}  // namespace

std::string StateManager::incremental_difference(DigestForm form) const {
    const uint64_t incremental = state_hash(form);
    const uint64_t from_scratch = state_hash_from_scratch(form);
    if (incremental != from_scratch)
        return "the incremental state digest " + hash_hex(incremental) +
               " differs from the from-scratch one " + hash_hex(from_scratch);
    const std::vector<InvariantResult> results = check_invariants();
    const std::vector<InvariantResult> full = check_invariants_full();
    for (size_t i = 0; i < std::max(results.size(), full.size()); ++i)
        if (i >= results.size() || i >= full.size() || results[i] != full[i])
            return "the incremental invariants differ from the full check: " +
                   (i < results.size() ? described(results[i]) : "(none)") + ", full check " +
                   (i < full.size() ? described(full[i]) : "(none)");
    return {};
}

uint64_t StateManager::state_hash(DigestForm form) const {
    if (hashed_revision_ == revision_ && hashed_form_ == form) return hash_;
    hash_ = digest_.update({policy_, ledger_, maps_, *cache_}, form);
    hashed_revision_ = revision_;
    hashed_form_ = form;
    return hash_;
}

uint64_t StateManager::state_hash_from_scratch(DigestForm form) const {
    return StateDigest::from_scratch({policy_, ledger_, maps_, *cache_}, form);
}

uint64_t StateManager::stream_state_hash() const {
    return kvw::stream_state_hash({policy_, ledger_, maps_, *cache_});
}

void StateManager::debug_desync_row(int layer, int row) {
    changed();
    if (layer < 0 || layer >= n_layers())
        throw StateError(StateErrorKind::LayerOutOfRange, "debug_desync_row",
                         "layer " + std::to_string(layer));
    LayerMap& map = maps_.edit(size_t(layer));
    if (row < 0 || row >= map.rows())
        throw StateError(StateErrorKind::RowOutOfRange, "debug_desync_row",
                         "row " + std::to_string(row));
    int64_t& id = map.pos2ledger[size_t(row)];
    id = ledger_.size() > 1 ? (id + 1) % ledger_.size() : -1;
}

}  // namespace kvw
