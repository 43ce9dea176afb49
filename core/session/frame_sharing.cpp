#include "core/session/frame_sharing.h"

#include <algorithm>
#include <memory>

namespace kvw {

namespace {

constexpr size_t kRows = LayerMaps::kChunkRows;

// True when the kept chunk c, the last it holds and partial, holds rows [c · kRows, from) as
// `rows` has them: rows before `from` kept their values (the first row renewed since, which
// after an append is the first appended one; c · kRows when nothing is known), the rest are
// compared. Only then can rows be appended to it in place: nobody appended past its count
// either.
template <class T>
bool only_appended(const FrameSharing::Kept<T>& kept, size_t c, size_t from,
                   const std::vector<T>& rows) {
    if (c + 1 != kept.rows.chunk_count()) return false;
    const std::vector<T>& chunk = *kept.rows.chunk(c);
    const size_t had = kept.rows.chunk_count_at(c), first = c * kRows;
    if (chunk.size() != had || had == kRows || rows.size() < first + had) return false;
    from = std::clamp(from, first, first + had) - first;
    return std::equal(chunk.begin() + ptrdiff_t(from), chunk.end(),
                      rows.begin() + ptrdiff_t(first + from));
}

template <class T>
bool equal_rows(const std::vector<T>& chunk, size_t count, const std::vector<T>& rows,
                size_t first) {
    return chunk.size() >= count && std::equal(chunk.begin(), chunk.begin() + ptrdiff_t(count),
                                               rows.begin() + ptrdiff_t(first));
}

template <class T>
SharedRows<T> share(std::vector<FrameSharing::Kept<T>>& last, const LayerMaps& maps, int layer,
                    const std::vector<T>& rows) {
    if (size_t(layer) >= last.size()) last.resize(size_t(layer) + 1);
    FrameSharing::Kept<T>& kept = last[size_t(layer)];
    const ChunkRevisions::RowSpan renewed = maps.rows_renewed_since(size_t(layer), kept.revision);
    kept.revision = maps.revision(size_t(layer));
    const size_t kept_full = kept.rows.size() / kRows;  // the kept chunks that are full
    if (renewed.empty() && kept.rows.size() == rows.size()) return kept.rows;
    // Else every chunk may have moved: a write from the first row on, renewals that do not
    // reach back to the last Frame, or rows changed without one. Each chunk is then compared
    // with the last Frame's and shared when equal, which costs less than copying it.
    const bool known = !renewed.empty() && renewed.first != 0;
    const size_t first_renewed_row = known ? size_t(renewed.first) : 0;
    const size_t unchanged =
        known ? std::min({first_renewed_row / kRows, kept_full, rows.size() / kRows}) : 0;
    SharedRows<T> shared = kept.rows.first_chunks(unchanged);
    for (size_t c = unchanged; c * kRows < rows.size(); ++c) {
        const size_t first = c * kRows, count = values_in_chunk(rows.size(), kRows, c);
        if (!known && c < kept_full && count == kRows &&
            equal_rows(*kept.rows.chunk(c), kRows, rows, first)) {
            shared.append_chunk(kept.rows.chunk(c), kRows);
        } else if (only_appended(kept, c, first_renewed_row, rows)) {
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
    }
    kept.rows = shared;
    return shared;
}

}  // namespace

LedgerRecords FrameSharing::ledger(const Ledger& ledger) {
    return LedgerRecords(ledger.record_spine(), size_t(ledger.size()),
                         size_t(Ledger::kChunkRecords));
}

SharedRows<int64_t> FrameSharing::pos2ledger(const LayerMaps& maps, int layer) {
    return share(pos2ledger_, maps, layer, maps.at(size_t(layer)).pos2ledger);
}

SharedRows<int32_t> FrameSharing::rope_pos(const LayerMaps& maps, int layer) {
    return share(rope_pos_, maps, layer, maps.at(size_t(layer)).rope_pos);
}

}  // namespace kvw
