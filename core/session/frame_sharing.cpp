#include "core/session/frame_sharing.h"

#include <algorithm>
#include <memory>

namespace kvw {

namespace {

LedgerRecords::ChunkPtr copy_chunk(const Ledger& ledger, int64_t chunk) {
    const int64_t first = chunk * Ledger::kChunkRecords;
    const int64_t last = std::min(ledger.size(), first + Ledger::kChunkRecords);
    auto records = std::make_shared<std::vector<LedgerRecord>>();
    records->reserve(size_t(last - first));
    for (int64_t id = first; id < last; ++id) {
        const LedgerEntry& e = ledger.at(id);
        records->push_back(
            {e.id, e.kind, e.token_id, e.piece, e.born_tick, e.died_tick, e.status, e.removal});
    }
    return records;
}

template <class Kept, class T>
SharedRows<T> share(std::vector<Kept>& last, const LayerMaps& maps, int layer,
                    const std::vector<T>& rows) {
    if (size_t(layer) >= last.size()) last.resize(size_t(layer) + 1);
    Kept& kept = last[size_t(layer)];
    constexpr size_t kRows = LayerMaps::kChunkRows;
    SharedRows<T> shared(kRows);
    std::vector<uint64_t> revisions;
    for (size_t c = 0; c * kRows < rows.size(); ++c) {
        const uint64_t revision = maps.chunk_revision(size_t(layer), c);
        if (c < kept.revisions.size() && kept.revisions[c] == revision) {
            shared.append_chunk(kept.rows.chunk(c));
        } else {
            const auto first = rows.begin() + ptrdiff_t(c * kRows);
            const auto last_row = rows.begin() + ptrdiff_t(std::min(rows.size(), (c + 1) * kRows));
            shared.append_chunk(std::make_shared<const std::vector<T>>(first, last_row));
        }
        revisions.push_back(revision);
    }
    kept = {shared, std::move(revisions)};
    return shared;
}

}  // namespace

LedgerRecords FrameSharing::ledger(const Ledger& ledger) {
    LedgerRecords records(size_t(Ledger::kChunkRecords));
    std::vector<uint64_t> revisions;
    for (int64_t c = 0; c < ledger.chunk_count(); ++c) {
        const uint64_t revision = ledger.chunk_revision(c);
        const bool unchanged =
            size_t(c) < chunk_revisions_.size() && chunk_revisions_[size_t(c)] == revision;
        records.append_chunk(unchanged ? ledger_.chunk(size_t(c)) : copy_chunk(ledger, c));
        revisions.push_back(revision);
    }
    chunk_revisions_ = std::move(revisions);
    ledger_ = records;
    return records;
}

SharedRows<int64_t> FrameSharing::pos2ledger(const LayerMaps& maps, int layer) {
    return share(pos2ledger_, maps, layer, maps.at(size_t(layer)).pos2ledger);
}

SharedRows<int32_t> FrameSharing::rope_pos(const LayerMaps& maps, int layer) {
    return share(rope_pos_, maps, layer, maps.at(size_t(layer)).rope_pos);
}

}  // namespace kvw
