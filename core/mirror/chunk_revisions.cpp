#include "core/mirror/chunk_revisions.h"

#include <algorithm>

#include "core/mirror/revision.h"

namespace kvw {

ChunkRevisions::ChunkRevisions() : latest_(next_revision()), renewals_{{latest_, {0, kToEnd}}} {}

size_t ChunkRevisions::first_block(RowSpan rows) {
    return rows.empty() ? kNoneRenewed : size_t(rows.first / kRevisionBlockRows);
}

ChunkRevisions::RowSpan ChunkRevisions::rows_renewed_since(uint64_t since) const {
    RowSpan renewed;  // the union of the renewals after `since`, as one span
    for (auto r = renewals_.rbegin(); r != renewals_.rend(); ++r) {
        if (r->revision == since) return renewed;
        renewed = renewed.empty() ? r->rows
                                  : RowSpan{std::min(renewed.first, r->rows.first),
                                            std::max(renewed.end, r->rows.end)};
    }
    return {0, kToEnd};
}

void ChunkRevisions::renewed(RowSpan rows) {
    if (renewals_.size() == kRenewalsKept) renewals_.erase(renewals_.begin());
    renewals_.push_back({latest_, rows});
}

void ChunkRevisions::renew_from(int first_row) {
    // The blocks before first_row's keep their revisions (those past the end had latest_);
    // first_row's and every later one take the new one.
    first_row = std::max(first_row, 0);
    blocks_.resize(size_t(first_row / kRevisionBlockRows), latest_);
    latest_ = next_revision();
    renewed({first_row, kToEnd});
}

void ChunkRevisions::renew_rows(int first_row, int end_row) {
    if (end_row <= first_row) return;
    const size_t first = size_t(std::max(first_row, 0) / kRevisionBlockRows);
    const size_t last = size_t((end_row - 1) / kRevisionBlockRows);
    if (blocks_.size() <= last) blocks_.resize(last + 1, latest_);
    latest_ = next_revision();
    for (size_t b = first; b <= last; ++b) blocks_[b] = latest_;
    renewed({std::max(first_row, 0), end_row});
}

}  // namespace kvw
