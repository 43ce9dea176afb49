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

std::vector<InvariantResult> StateManager::check_invariants() const {
    std::vector<InvariantResult> out;
    const std::vector<int64_t> live_records = live_per_layer(ledger_, n_layers());
    std::vector<InvariantResult> held_live = rows_hold_live_records(maps_, ledger_);
    std::vector<int> first_row(size_t(ledger_.size()), kUnseen);  // first_duplicate's table
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

        InvariantResult& live = held_live[size_t(l)];
        if (live.passed) {
            const int64_t held = live_records[size_t(l)];
            if (held != n)
                live = failed("ids_live", l, -1,
                              "ledger has " + std::to_string(held) +
                                  " records live in this layer, pos2ledger " + std::to_string(n) +
                                  " rows");
        }
        out.push_back(std::move(live));

        const auto [twice, row] = first_duplicate(map.pos2ledger, first_row);
        out.push_back(twice < 0 ? passed("ids_unique", l)
                                : failed("ids_unique", l, row,
                                         "record " + std::to_string(twice) + " held twice"));

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
        out.push_back(rope);
    }
    check_ring(out);
    return out;
}

uint64_t StateManager::state_hash() const {
    if (hashed_revision_ == revision_) return hash_;
    StreamHash f;
    f.value(policy_);
    // Each layer's brightness column read through its chunk's data, taken once per chunk of
    // records (a lookup per record and layer was a tenth of a tick at 100,000 rows).
    constexpr size_t kChunk = size_t(Ledger::kChunkRecords);
    std::vector<const float*> brightness(static_cast<size_t>(n_layers()));
    for (const LedgerEntry& e : ledger_.entries()) {
        const size_t id = size_t(e.id);  // == its index in the ledger
        if (id % kChunk == 0)
            for (int l = 0; l < n_layers(); ++l)
                brightness[size_t(l)] = ledger_.brightness_chunks(l)[id / kChunk]->data();
        f.value(e.id);
        f.value(e.kind);
        f.value(e.token_id);
        f.bytes(e.piece.data(), e.piece.size());
        f.value(e.born_tick);
        f.value(e.died_tick);
        for (int l = 0; l < n_layers(); ++l) f.value(brightness[size_t(l)][id % kChunk]);
        f.bytes(e.status.data(), e.status.size());
        for (const Removal& r : e.removal) {
            f.value(r.tick);
            f.value(r.cause.reason);
            f.value(r.cause.score.value_or(0.0f));
            f.value(r.cause.score.has_value());
        }
    }
    for (int l = 0; l < n_layers(); ++l) {
        const LayerMap& map = maps_[size_t(l)];
        f.value(map.rows());
        f.bytes(map.pos2ledger.data(), map.pos2ledger.size() * sizeof(int64_t));
        f.bytes(map.rope_pos.data(), map.rope_pos.size() * sizeof(int32_t));
        f.value(cache_->rows(l));
        std::vector<uint8_t> stored;  // rows gathered into 64 KiB pieces: few calls, little memory
        for (int r = 0; r < cache_->rows(l); ++r) {
            cache_->append_stored_row(l, r, stored);
            if (stored.size() < (size_t(64) << 10)) continue;
            f.bytes(stored.data(), stored.size());
            stored.clear();
        }
        f.bytes(stored.data(), stored.size());
    }
    hashed_revision_ = revision_;
    hash_ = f.digest();
    return hash_;
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
