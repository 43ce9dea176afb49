#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/cache/kv_layout.h"
#include "core/mirror/layer_map.h"
#include "core/mirror/ledger.h"
#include "core/state/rope_policy.h"
#include "core/state/stream_hash.h"

namespace kvw {

// What the state hash reads: the RoPE policy, the ledger, the maps and the cache's rows.
struct StateParts {
    RopePolicy policy;
    const Ledger& ledger;
    const LayerMaps& maps;
    const KvLayout& cache;
};

// How the state digest reads the brightness columns, which a tick changes in every row.
// Sum: one number per layer, the ledger's checksum of the column (Ledger::brightness_sum),
// which every write keeps up to date. Bytes: every value's bytes, as traces with the header
// "xxh64-chunks" were hashed; kept so that they replay with their hashes compared.
enum class BrightnessInDigest { Sum, Bytes };

// How the state digest reads a block of a layer's rows. Streams: its ledger ids, its phases
// and its stored K/V bytes each as a stream of its own, the block's digest made of their counts
// and digests, so that a block whose rows only grew is digested on from the rows it had: a
// tick's append hashes one row per layer, not the up to 256 of its block again. Head: the
// block's counts, ids and phases, then its stored rows in one stream, as traces with the
// headers "xxh64-chunks-bsum" and "xxh64-chunks" were hashed; kept so that they replay with
// their hashes compared.
enum class BlockDigest { Streams, Head };

// What a state digest is made of: how it reads brightness and how it reads a block of rows.
struct DigestForm {
    BrightnessInDigest brightness = BrightnessInDigest::Sum;
    BlockDigest blocks = BlockDigest::Streams;
    bool operator==(const DigestForm&) const = default;
};

// The state hash as a digest of digests (ARCHITECTURE §6.1): XXH64 of the policy, one digest
// per chunk of ledger records, the brightness columns (see BrightnessInDigest), and one digest
// per block of each layer's rows (its pos2ledger, rope_pos and stored K/V; kRevisionBlockRows
// rows), in that fixed order. A chunk's or block's digest is remembered with the revisions of
// what it read (Ledger::chunk_revision, LayerMaps::block_revision, KvLayout::block_revision)
// and computed again only when one moved, so a tick that appends a row rehashes one block per
// layer, not the whole cache.
class StateDigest {
public:
    uint64_t update(const StateParts& state, DigestForm form);
    // Every chunk and block digested anew and the brightness sums read from every value,
    // nothing remembered: the reference update() is checked against (tests, the soak).
    static uint64_t from_scratch(const StateParts& state, DigestForm form);

private:
    uint64_t combine(const StateParts& state, DigestForm form, bool from_scratch);

    // A chunk of records as last digested: the hash's state after its records and their
    // revisions (Ledger::record_revisions), so that a chunk whose first records kept their
    // revisions (a tick appended one, and marked it live) is digested on from there: the last
    // chunk's 1,024 records with their per-layer standing were hashed again after every tick.
    struct RecordsMemo {
        StreamHash after;
        std::vector<uint64_t> revisions;  // [record of the chunk] as hashed into `after`
    };
    uint64_t records_digest(const Ledger& ledger, int64_t chunk, RecordsMemo& memo);
    // A layer's row blocks as last digested, and the layer's revisions then: the blocks before
    // the first one renewed since (rows_renewed_since) are not looked at again, so a
    // tick that appends a row costs the same at 8,000 rows as at 100,000.
    struct BlockRevisions {
        uint64_t maps = 0, cache = 0;  // LayerMaps::block_revision, KvLayout::block_revision
    };
    // A block's column (ids, phases, stored rows) read as a stream, with the rows it has read
    // from the block's first.
    struct RowStream {
        int rows = 0;
        StreamHash hash;
    };
    // The streams of a block digested as BlockDigest::Streams, to go on from.
    struct BlockStreams {
        size_t block = SIZE_MAX;  // SIZE_MAX: none
        RowStream ids, phases, stored;
    };
    struct LayerMemo {
        uint64_t maps_revision = 0, rows_revision = 0;  // LayerMaps::revision, KvLayout's
        std::vector<BlockRevisions> blocks;             // [row block]
        std::vector<uint64_t> digests;  // [row block] their digests, fed to the hash as one run
        BlockStreams last;              // the streams of the layer's last block
    };
    // Block `block` of a layer read as BlockDigest::Streams: its ids and phases hashed, the
    // stored rows it reads added to `reads` (hashed later, with every block's). The layer's last
    // block goes on from memo.last where its rows before `maps_from` (ids, phases) and
    // `cache_from` (stored rows), the first rows that may have changed since the memo was
    // made, are the ones read; any other block is read into `earlier`. Returns the streams.
    static BlockStreams& read_streams(const StateParts& s, int layer, size_t block, LayerMemo& memo,
                                      BlockStreams& earlier, int maps_from, int cache_from,
                                      std::vector<KvLayout::RowsToHash>& reads);
    // The block's digest once its streams have read their rows: their counts and digests.
    static uint64_t streams_digest(const BlockStreams& b);
    // A block digested again, finished once the cache has hashed the stored rows it reads.
    struct PendingBlock {
        int layer = 0;
        size_t block = 0;
        StreamHash head;                  // BlockDigest::Head: its head, then its stored rows
        BlockStreams* streams = nullptr;  // BlockDigest::Streams: its streams
    };
    // [ledger chunk]: each chunk's revision when digested and its digest side by side, so that
    // a tick compares one contiguous run of revisions and feeds the digests as one run of
    // bytes (read apart, 98 memos at 100,000 records were cold lines after every forward pass).
    std::vector<uint64_t> record_revisions_;
    std::vector<uint64_t> record_digests_;
    std::vector<RecordsMemo> records_;  // [ledger chunk] what goes on from there
    std::vector<LayerMemo> rows_;       // [layer]
    DigestForm form_;                   // what the memos were made for
};

// A block of a layer's rows as its digest begins: the block's map rows (count, pos2ledger,
// rope_pos) and how many of its rows the cache holds (`cache_rows`: the layer's). The block's
// stored rows follow, K bytes, K scales, V bytes, V scales row after row (KvLayout::stored_row):
// on the host (StateDigest), or on the device from this state (kernels/bodies/cache_digest.h).
StreamHash row_block_head(const LayerMap& map, int cache_rows, size_t block);

// The state hash traces written before the digest of digests recorded (header "xxh64"): XXH64
// of one stream over the same state, every row read each time. Kept so that those traces replay
// with their hashes compared (the session hashes as its trace header says).
uint64_t stream_state_hash(const StateParts& state);

}  // namespace kvw
