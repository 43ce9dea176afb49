#include "core/session/frame_sharing.h"

#include <algorithm>
#include <memory>

namespace kvw {

namespace {

constexpr size_t kRows = LayerMaps::kChunkRows;
constexpr size_t kBlockRows = size_t(kRevisionBlockRows);
constexpr size_t kBlocksPerChunk = kRows / kBlockRows;

// The revisions of chunk c's blocks of rows that hold [c · kRows, c · kRows + count).
std::vector<uint64_t> block_revisions(const LayerMaps& maps, int layer, size_t c, size_t count) {
    std::vector<uint64_t> out;
    for (size_t b = 0; b * kBlockRows < count; ++b)
        out.push_back(maps.block_revision(size_t(layer), c * kBlocksPerChunk + b));
    return out;
}

// True when the kept last chunk c still holds rows as the layer has them and rows were only
// added after it: its blocks kept their revisions, but the block its last row is in, whose
// revision an append moves, and whose rows are compared instead.
template <class T>
bool only_appended(const FrameSharing::Kept<T>& kept, const LayerMaps& maps, int layer, size_t c,
                   const std::vector<T>& rows) {
    if (c + 1 != kept.revisions.size()) return false;
    const std::vector<T>& chunk = *kept.rows.chunk(c);
    const size_t had = kept.rows.chunk_count_at(c), first = c * kRows;
    if (chunk.size() != had || had == kRows || rows.size() < first + had) return false;
    const size_t partial = had / kBlockRows;  // the block `had` ends in, or after the last
    for (size_t b = 0; b < partial; ++b)
        if (maps.block_revision(size_t(layer), c * kBlocksPerChunk + b) != kept.last_blocks[b])
            return false;
    const size_t from = partial * kBlockRows;
    return std::equal(chunk.begin() + ptrdiff_t(from), chunk.end(),
                      rows.begin() + ptrdiff_t(first + from));
}

template <class T>
SharedRows<T> share(std::vector<FrameSharing::Kept<T>>& last, const LayerMaps& maps, int layer,
                    const std::vector<T>& rows) {
    if (size_t(layer) >= last.size()) last.resize(size_t(layer) + 1);
    FrameSharing::Kept<T>& kept = last[size_t(layer)];
    SharedRows<T> shared(kRows);
    std::vector<uint64_t> revisions;
    for (size_t c = 0; c * kRows < rows.size(); ++c) {
        const uint64_t revision = maps.chunk_revision(size_t(layer), c);
        const size_t first = c * kRows, count = values_in_chunk(rows.size(), kRows, c);
        if (c < kept.revisions.size() && kept.revisions[c] == revision) {
            shared.append_chunk(kept.rows.chunk(c), kept.rows.chunk_count_at(c));
        } else if (only_appended(kept, maps, layer, c, rows)) {
            // Rows past what the Frames that hold the chunk read: appended in place, within
            // the capacity reserved when it was made, so their values never move.
            auto& chunk = const_cast<std::vector<T>&>(*kept.rows.chunk(c));
            chunk.insert(chunk.end(), rows.begin() + ptrdiff_t(first + chunk.size()),
                         rows.begin() + ptrdiff_t(first + count));
            shared.append_chunk(kept.rows.chunk(c), count);
        } else {
            auto chunk = std::make_shared<std::vector<T>>();
            chunk->reserve(kRows);
            chunk->assign(rows.begin() + ptrdiff_t(first), rows.begin() + ptrdiff_t(first + count));
            shared.append_chunk(std::move(chunk), count);
        }
        revisions.push_back(revision);
    }
    const size_t chunks = revisions.size();
    kept = {shared, std::move(revisions),
            chunks == 0 ? std::vector<uint64_t>{}
                        : block_revisions(maps, layer, chunks - 1,
                                          values_in_chunk(rows.size(), kRows, chunks - 1))};
    return shared;
}

}  // namespace

LedgerRecords FrameSharing::ledger(const Ledger& ledger) {
    return LedgerRecords(ledger.record_chunks(), size_t(ledger.size()),
                         size_t(Ledger::kChunkRecords));
}

SharedRows<int64_t> FrameSharing::pos2ledger(const LayerMaps& maps, int layer) {
    return share(pos2ledger_, maps, layer, maps.at(size_t(layer)).pos2ledger);
}

SharedRows<int32_t> FrameSharing::rope_pos(const LayerMaps& maps, int layer) {
    return share(rope_pos_, maps, layer, maps.at(size_t(layer)).rope_pos);
}

}  // namespace kvw
