#include "core/mirror/chunk_revisions.h"

#include <algorithm>

#include "core/mirror/revision.h"

namespace kvw {

ChunkRevisions::ChunkRevisions() : latest_(next_revision()), renewals_{{latest_, 0}} {}

size_t ChunkRevisions::first_block_renewed_since(uint64_t since) const {
    if (since == latest_) return kNoneRenewed;
    size_t first = kNoneRenewed;
    for (auto r = renewals_.rbegin(); r != renewals_.rend(); ++r) {
        if (r->revision == since) return first;
        first = std::min(first, r->first_block);
    }
    return 0;
}

void ChunkRevisions::renewed(size_t first_block) {
    if (renewals_.size() == kRenewalsKept) renewals_.erase(renewals_.begin());
    renewals_.push_back({latest_, first_block});
}

void ChunkRevisions::renew_from(int first_row) {
    // The blocks before first_row's keep their revisions (those past the end had latest_);
    // first_row's and every later one take the new one.
    blocks_.resize(size_t(std::max(first_row, 0) / kRevisionBlockRows), latest_);
    latest_ = next_revision();
    renewed(blocks_.size());
}

void ChunkRevisions::renew_rows(int first_row, int end_row) {
    if (end_row <= first_row) return;
    const size_t first = size_t(std::max(first_row, 0) / kRevisionBlockRows);
    const size_t last = size_t((end_row - 1) / kRevisionBlockRows);
    if (blocks_.size() <= last) blocks_.resize(last + 1, latest_);
    latest_ = next_revision();
    for (size_t b = first; b <= last; ++b) blocks_[b] = latest_;
    renewed(first);
}

}  // namespace kvw
