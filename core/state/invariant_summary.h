#pragma once
#include <cstdint>
#include <vector>

#include "core/mirror/layer_map.h"
#include "core/mirror/ledger.h"
#include "core/state/rope_policy.h"

namespace kvw {

// What the per-row invariants (ids_live, ids_unique, rope_policy) read, summarised per block of
// rows (kRevisionBlockRows) and per chunk of ledger records and remembered with their revisions, so
// that a check after a tick reads the chunks the tick touched plus a summary per layer instead of
// every row (ARCHITECTURE §6.1).
//
// ids_live and ids_unique together say that the multiset of record ids a layer's rows hold is
// the set of records live in that layer. Each side is kept as a count and a sum of a 64-bit
// mix of each id: a row block sums the ids its rows hold, a ledger chunk the ids of its records
// live in each layer. Equal counts and sums mean the checks pass (a difference that left both
// equal would need the mixed ids of two different multisets to sum to the same 64 bits); any
// difference sends the caller to the full check, which says where.
class InvariantSummary {
public:
    // Whether ids_live, ids_unique and rope_policy hold in every layer. `capacity`: the cache's
    // rows per layer (a final_index phase must be below it).
    bool rows_hold(const Ledger& ledger, const LayerMaps& maps, RopePolicy policy, int capacity);

private:
    // A block of rows as counted. Its rows counted, all with a phase, are counted on from
    // when they kept their values (the block an append grew), as the digest goes on.
    struct RowChunk {
        uint64_t revision = 0;  // 0: none yet (next_revision never returns it)
        RopePolicy policy = RopePolicy::FinalIndex;
        int capacity = 0;
        uint64_t id_sum = 0;
        bool phases_hold = true;
        int rows = 0;    // counted, from the block's first
        int phased = 0;  // of them, those with a phase (rope_pos may be short in a bad state)
    };
    // A chunk's records counted, with their revisions (Ledger::record_revisions): a chunk
    // whose first records kept theirs (a tick appended one and marked it live) is counted on
    // from there, as the state digest goes on (StateDigest).
    struct RecordChunk {
        std::vector<int64_t> live;        // [layer]: records of the chunk live there
        std::vector<uint64_t> id_sum;     // [layer]: their mixed ids summed
        std::vector<uint64_t> revisions;  // [record of the chunk] as counted
    };
    // Ledger::chunk_revision of each chunk when counted, side by side, so that a check compares
    // one contiguous run of revisions; and the chunks' counts summed per layer, kept up to date
    // as chunks are counted again, so that it does not add up 22 layers of 98 chunks (at 100,000
    // records) after every primitive.
    std::vector<uint64_t> record_revisions_;  // [ledger chunk]
    std::vector<int64_t> live_total_;         // [layer]
    std::vector<uint64_t> live_sum_total_;    // [layer]
    // The layers the totals count: a state of another shape counts every chunk again.
    size_t counted_layers_ = 0;
    // A layer's row blocks as last counted, with the layer's revision then and running totals:
    // the blocks before the first row renewed since (rows_renewed_since) are not looked at
    // again, so a tick that appends a row costs the same at 8,000 rows as at 100,000.
    struct LayerRows {
        uint64_t revision = 0;                       // LayerMaps::revision when counted
        RopePolicy policy = RopePolicy::FinalIndex;  // and the policy and capacity checked
        int capacity = 0;
        std::vector<RowChunk> blocks;
        std::vector<uint64_t> sum_before;  // [block + 1]: the id sums of the blocks before it
        std::vector<int> failing_before;   // [block + 1]: blocks before it whose phases fail
    };
    std::vector<RecordChunk> records_;  // [ledger chunk]
    std::vector<LayerRows> rows_;       // [layer]
};

}  // namespace kvw
