#include "core/session/frame_sharing.h"

#include <algorithm>
#include <memory>

namespace kvw {

namespace {

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
    for (const auto& chunk : ledger.record_chunks()) records.append_chunk(chunk);
    return records;
}

SharedRows<int64_t> FrameSharing::pos2ledger(const LayerMaps& maps, int layer) {
    return share(pos2ledger_, maps, layer, maps.at(size_t(layer)).pos2ledger);
}

SharedRows<int32_t> FrameSharing::rope_pos(const LayerMaps& maps, int layer) {
    return share(rope_pos_, maps, layer, maps.at(size_t(layer)).rope_pos);
}

}  // namespace kvw
