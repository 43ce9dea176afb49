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
SharedRows<T> share(std::vector<Kept>& last, int layer, const std::vector<T>& rows,
                    uint64_t revision) {
    if (size_t(layer) >= last.size()) last.resize(size_t(layer) + 1);
    Kept& kept = last[size_t(layer)];
    if (kept.revision != revision) kept = {SharedRows<T>(rows), revision};
    return kept.rows;
}

}  // namespace

LedgerRecords FrameSharing::ledger(const Ledger& ledger) {
    LedgerRecords records;
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

SharedRows<int64_t> FrameSharing::pos2ledger(int layer, const std::vector<int64_t>& rows,
                                             uint64_t revision) {
    return share(pos2ledger_, layer, rows, revision);
}

SharedRows<int32_t> FrameSharing::rope_pos(int layer, const std::vector<int32_t>& rows,
                                           uint64_t revision) {
    return share(rope_pos_, layer, rows, revision);
}

}  // namespace kvw
