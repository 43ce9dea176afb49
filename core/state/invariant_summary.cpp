#include "core/state/invariant_summary.h"

#include <algorithm>
#include <span>

namespace kvw {

namespace {

// splitmix64's finaliser: ids that differ in one bit give unrelated 64-bit values, so sums of
// different multisets of ids do not meet by accident.
uint64_t mixed(int64_t id) {
    uint64_t z = uint64_t(id) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

bool phase_holds(RopePolicy policy, int32_t phase, int row, int64_t id, int capacity) {
    switch (policy) {
        case RopePolicy::Reindex: return phase == row;
        case RopePolicy::Original: return phase == id;
        case RopePolicy::FinalIndex: break;
    }
    return phase >= 0 && phase < capacity;
}

}  // namespace

bool InvariantSummary::rows_hold(const Ledger& ledger, const LayerMaps& maps, RopePolicy policy,
                                 int capacity) {
    const size_t n_layers = maps.size();
    const size_t chunks = size_t(ledger.chunk_count());
    if (counted_layers_ != n_layers || chunks < records_.size()) {  // count everything again
        records_.clear();
        record_revisions_.clear();
        live_total_.assign(n_layers, 0);
        live_sum_total_.assign(n_layers, 0);
        counted_layers_ = n_layers;
    }
    records_.resize(chunks);
    record_revisions_.resize(chunks, 0);  // 0: none yet (next_revision never returns it)
    const Ledger::Entries entries = ledger.entries();
    for (size_t c = 0; c < chunks; ++c) {
        const uint64_t revision = ledger.chunk_revision(int64_t(c));
        if (record_revisions_[c] == revision) continue;
        record_revisions_[c] = revision;
        RecordChunk& chunk = records_[c];
        const std::span<const uint64_t> revisions = ledger.record_revisions(int64_t(c));
        const size_t kept = chunk.revisions.size();
        const bool goes_on =
            chunk.live.size() == n_layers && Ledger::records_unchanged(chunk.revisions, revisions);
        for (size_t l = 0; l < chunk.live.size(); ++l) {  // out of the totals until counted
            live_total_[l] -= chunk.live[l];
            live_sum_total_[l] -= chunk.id_sum[l];
        }
        if (!goes_on) {
            chunk.live.assign(n_layers, 0);
            chunk.id_sum.assign(n_layers, 0);
        }
        chunk.revisions.assign(revisions.begin(), revisions.end());
        const int64_t first = int64_t(c) * Ledger::kChunkRecords;
        const int64_t end = first + int64_t(revisions.size());
        for (int64_t id = first + int64_t(goes_on ? kept : 0); id < end; ++id) {
            const LedgerEntry& e = entries[size_t(id)];
            for (size_t l = 0; l < n_layers && l < e.status.size(); ++l)
                if (e.status[l] == RowStatus::Live) {
                    ++chunk.live[l];
                    chunk.id_sum[l] += mixed(id);
                }
        }
        for (size_t l = 0; l < n_layers; ++l) {
            live_total_[l] += chunk.live[l];
            live_sum_total_[l] += chunk.id_sum[l];
        }
    }

    rows_.resize(n_layers);
    bool hold = true;
    for (size_t l = 0; l < n_layers; ++l) {
        const LayerMap& map = maps[l];
        LayerRows& layer = rows_[l];
        const size_t blocks = size_t((map.rows() + kRevisionBlockRows - 1) / kRevisionBlockRows);
        const bool same_check = layer.policy == policy && layer.capacity == capacity;
        const ChunkRevisions::RowSpan renewed = maps.rows_renewed_since(l, layer.revision);
        const size_t unchanged =
            same_check
                ? std::min({layer.blocks.size(), blocks, ChunkRevisions::first_block(renewed)})
                : 0;
        const int kept_to = renewed.first_changed();  // rows before it kept their values
        layer.blocks.resize(blocks);
        layer.sum_before.resize(blocks + 1, 0);
        layer.failing_before.resize(blocks + 1, 0);
        for (size_t c = unchanged; c < blocks; ++c) {
            RowChunk& chunk = layer.blocks[c];
            const uint64_t revision = maps.block_revision(l, c);
            if (chunk.revision != revision || chunk.policy != policy ||
                chunk.capacity != capacity) {
                const int first = int(c) * kRevisionBlockRows;
                const int end = std::min(first + kRevisionBlockRows, map.rows());
                const int phases = std::min(end, int(map.rope_pos.size()));
                const bool counts_on = chunk.policy == policy && chunk.capacity == capacity &&
                                       chunk.phased == chunk.rows &&
                                       first + chunk.rows <= std::min(kept_to, end);
                if (!counts_on) chunk = {0, policy, capacity, 0, true, 0, 0};
                chunk.revision = revision;
                for (int r = first + chunk.rows; r < end; ++r) {
                    const int64_t id = map.pos2ledger[size_t(r)];
                    chunk.id_sum += mixed(id);
                    if (r < phases)
                        chunk.phases_hold =
                            chunk.phases_hold &&
                            phase_holds(policy, map.rope_pos[size_t(r)], r, id, capacity);
                }
                chunk.rows = end - first;
                chunk.phased = std::max(phases - first, 0);
            }
            layer.sum_before[c + 1] = layer.sum_before[c] + chunk.id_sum;
            layer.failing_before[c + 1] = layer.failing_before[c] + (chunk.phases_hold ? 0 : 1);
        }
        layer.revision = maps.revision(l);
        layer.policy = policy;
        layer.capacity = capacity;
        hold = hold && layer.failing_before[blocks] == 0 && live_total_[l] == map.rows() &&
               live_sum_total_[l] == layer.sum_before[blocks];
    }
    return hold;
}

}  // namespace kvw
