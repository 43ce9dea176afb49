// Structural alignment: the cheap invariants, the state hash and the test hooks that break them.
#include <algorithm>
#include <cstring>
#include <string>

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

}  // namespace

std::vector<InvariantResult> StateManager::check_invariants() const {
    std::vector<InvariantResult> out;
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

        // Every row names a record live in this layer, and the ledger has no other such record.
        InvariantResult live = passed("ids_live", l);
        for (int r = 0; r < n && live.passed; ++r) {
            const int64_t id = map.pos2ledger[size_t(r)];
            if (!ledger_.contains(id))
                live = failed("ids_live", l, r, "no ledger record " + std::to_string(id));
            else if (ledger_.at(id).status[size_t(l)] != RowStatus::Live)
                live = failed("ids_live", l, r,
                              "record " + std::to_string(id) + " is not live in this layer");
        }
        if (live.passed) {
            const auto entries = ledger_.entries();
            const auto held = std::count_if(entries.begin(), entries.end(), [&](const auto& e) {
                return e.status[size_t(l)] == RowStatus::Live;
            });
            if (held != n)
                live = failed("ids_live", l, -1,
                              "ledger has " + std::to_string(held) +
                                  " records live in this layer, pos2ledger " + std::to_string(n) +
                                  " rows");
        }
        out.push_back(live);

        InvariantResult unique = passed("ids_unique", l);
        std::vector<std::pair<int64_t, int>> sorted;
        for (int r = 0; r < n; ++r) sorted.emplace_back(map.pos2ledger[size_t(r)], r);
        std::sort(sorted.begin(), sorted.end());
        for (size_t i = 1; i < sorted.size() && unique.passed; ++i)
            if (sorted[i].first == sorted[i - 1].first)
                unique = failed("ids_unique", l, std::max(sorted[i].second, sorted[i - 1].second),
                                "record " + std::to_string(sorted[i].first) + " held twice");
        out.push_back(unique);

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
    for (const LedgerEntry& e : ledger_.entries()) {
        f.value(e.id);
        f.value(e.kind);
        f.value(e.token_id);
        f.bytes(e.piece.data(), e.piece.size());
        f.value(e.born_tick);
        f.value(e.died_tick);
        for (int l = 0; l < n_layers(); ++l) f.value(ledger_.brightness(e.id, l));
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
