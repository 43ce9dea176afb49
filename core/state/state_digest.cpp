#include "core/state/state_digest.h"

#include <algorithm>
#include <deque>

#include "core/state/stream_hash.h"

namespace kvw {

namespace {

// A ledger record's fields but brightness, in the order the stream hash reads them.
void hash_record(StreamHash& f, const LedgerEntry& e) {
    f.value(e.id);
    f.value(e.kind);
    f.value(e.token_id);
    f.bytes(e.piece.data(), e.piece.size());
    f.value(e.born_tick);
    f.value(e.died_tick);
}

void hash_standing(StreamHash& f, const LedgerEntry& e) {
    f.bytes(e.status.data(), e.status.size());
    for (const Removal& r : e.removal) {
        f.value(r.tick);
        f.value(r.cause.reason);
        f.value(r.cause.score.value_or(0.0f));
        f.value(r.cause.score.has_value());
    }
}

// Stored rows [first, end) of a layer, fed to f where the cache keeps them (KvLayout::
// hash_stored_rows): the stream-at-once form's read; the digest of digests gathers its reads.
void hash_stored_rows(StreamHash& f, const KvLayout& cache, int layer, int first, int end) {
    const KvLayout::RowsToHash rows{layer, first, end, &f.state()};
    if (end > first) cache.hash_stored_rows({&rows, 1});
}

// Records [first, end) of the ledger fed to f, each with its standing.
void hash_records(StreamHash& f, const Ledger& ledger, int64_t first, int64_t end) {
    const Ledger::Entries entries = ledger.entries();
    for (int64_t id = first; id < end; ++id) {
        hash_record(f, entries[size_t(id)]);
        hash_standing(f, entries[size_t(id)]);
    }
}

uint64_t record_chunk_digest(const Ledger& ledger, int64_t chunk) {
    StreamHash f;
    const int64_t first = chunk * Ledger::kChunkRecords;
    hash_records(f, ledger, first, std::min(first + Ledger::kChunkRecords, ledger.size()));
    return f.digest();
}

// Rows [first, end) of a block's column, fed to `stream` after the rows it read when those are
// all before `kept_to` (the first row that may have changed since), else from the block's first
// row `block_first` on, in a stream begun anew. `feed(hash, from, to)` hashes rows [from, to).
template <class RowStream, class Feed>
void read_on(RowStream& stream, int block_first, int end, int kept_to, Feed feed) {
    if (block_first + stream.rows > std::min(kept_to, end)) stream = {};
    if (block_first + stream.rows < end) feed(stream.hash, block_first + stream.rows, end);
    stream.rows = end - block_first;
}

size_t row_blocks(const StateParts& s, int layer) {
    const int rows = std::max(s.maps[size_t(layer)].rows(), s.cache.rows(layer));
    return size_t((rows + kRevisionBlockRows - 1) / kRevisionBlockRows);
}

// The brightness columns as `how` reads them; the sums from every value when `from_scratch`.
void hash_brightness(StreamHash& f, const Ledger& ledger, BrightnessInDigest how,
                     bool from_scratch) {
    for (int l = 0; l < ledger.n_layers(); ++l) {
        if (how == BrightnessInDigest::Sum) {
            f.value(from_scratch ? ledger.brightness_sum_from_scratch(l)
                                 : ledger.brightness_sum(l));
            continue;
        }
        // each chunk up to the ledger's own count: a chunk may hold values appended after it
        // (ChunkedColumn), which belong to another copy of the ledger
        const auto& chunks = ledger.brightness_chunks(l);
        for (size_t c = 0; c < chunks.size(); ++c)
            f.bytes(chunks[c]->data(),
                    values_in_chunk(size_t(ledger.size()), size_t(Ledger::kChunkRecords), c) *
                        sizeof(float));
    }
}

}  // namespace

StreamHash row_block_head(const LayerMap& map, int cache_rows, size_t block) {
    StreamHash f;
    const int first = int(block) * kRevisionBlockRows;
    const int map_end = std::clamp(first + kRevisionBlockRows, first, std::max(map.rows(), first));
    f.value(map_end - first);
    f.bytes(map.pos2ledger.data() + first, size_t(map_end - first) * sizeof(int64_t));
    // rope_pos may be shorter than pos2ledger in a state the invariants reject.
    const int rope_end = std::clamp(int(map.rope_pos.size()), first, map_end);
    f.bytes(map.rope_pos.data() + std::min(first, rope_end),
            size_t(rope_end - std::min(first, rope_end)) * sizeof(int32_t));
    const int cache_end = std::clamp(cache_rows, first, first + kRevisionBlockRows);
    f.value(cache_end - first);
    return f;
}

uint64_t StateDigest::update(const StateParts& s, DigestForm form) {
    if (form != form_) *this = StateDigest();  // memos of another form
    form_ = form;
    return combine(s, form, false);
}

uint64_t StateDigest::from_scratch(const StateParts& state, DigestForm form) {
    return StateDigest().combine(state, form, true);
}

StateDigest::BlockStreams& StateDigest::read_streams(const StateParts& s, int layer, size_t block,
                                                     LayerMemo& memo, BlockStreams& earlier,
                                                     int maps_from, int cache_from,
                                                     std::vector<KvLayout::RowsToHash>& reads) {
    const LayerMap& map = s.maps[size_t(layer)];
    const int first = int(block) * kRevisionBlockRows;
    const int id_end = std::clamp(map.rows(), first, first + kRevisionBlockRows);
    // rope_pos may be shorter than pos2ledger in a state the invariants reject.
    const int phase_end = std::clamp(int(map.rope_pos.size()), first, id_end);
    const int stored_end = std::clamp(s.cache.rows(layer), first, first + kRevisionBlockRows);
    // Only the layer's last block is kept to go on from: an append grows no other.
    BlockStreams& b = block + 1 == row_blocks(s, layer) ? memo.last : earlier;
    if (b.block != block) b = BlockStreams{block, {}, {}, {}};
    read_on(b.ids, first, id_end, maps_from, [&](StreamHash& f, int from, int to) {
        f.bytes(map.pos2ledger.data() + from, size_t(to - from) * sizeof(int64_t));
    });
    read_on(b.phases, first, phase_end, maps_from, [&](StreamHash& f, int from, int to) {
        f.bytes(map.rope_pos.data() + from, size_t(to - from) * sizeof(int32_t));
    });
    read_on(b.stored, first, stored_end, cache_from, [&](StreamHash& f, int from, int to) {
        reads.push_back({layer, from, to, &f.state()});
    });
    return b;
}

uint64_t StateDigest::streams_digest(const BlockStreams& b) {
    StreamHash f;
    for (const RowStream* column : {&b.ids, &b.phases, &b.stored}) {
        f.value(column->rows);
        f.value(column->hash.digest());
    }
    return f.digest();
}

uint64_t StateDigest::records_digest(const Ledger& ledger, int64_t chunk, RecordsMemo& memo) {
    const std::span<const uint64_t> revisions = ledger.record_revisions(chunk);
    const size_t kept = memo.revisions.size();
    const bool goes_on = Ledger::records_unchanged(memo.revisions, revisions);
    if (!goes_on) memo.after = StreamHash();
    const int64_t first = chunk * Ledger::kChunkRecords;
    hash_records(memo.after, ledger, first + int64_t(goes_on ? kept : 0),
                 first + int64_t(revisions.size()));
    memo.revisions.assign(revisions.begin(), revisions.end());
    return memo.after.digest();
}

uint64_t StateDigest::combine(const StateParts& s, DigestForm form, bool from_scratch) {
    StreamHash f;
    f.value(s.policy);
    f.value(s.ledger.size());
    const size_t chunks = size_t(s.ledger.chunk_count());
    records_.resize(chunks);
    record_revisions_.resize(chunks, 0);  // 0: none yet (next_revision never returns it)
    record_digests_.resize(chunks);
    for (size_t c = 0; c < chunks; ++c) {
        const uint64_t revision = s.ledger.chunk_revision(int64_t(c));
        if (from_scratch) {
            record_digests_[c] = record_chunk_digest(s.ledger, int64_t(c));
        } else if (record_revisions_[c] != revision) {
            record_digests_[c] = records_digest(s.ledger, int64_t(c), records_[c]);
            record_revisions_[c] = revision;
        }
    }
    f.bytes(record_digests_.data(), chunks * sizeof(uint64_t));
    hash_brightness(f, s.ledger, form.brightness, from_scratch);
    const int n_layers = s.cache.n_layers();
    rows_.resize(size_t(n_layers));
    // The blocks digested again, every layer's, wait for the stored rows they read: the cache
    // hashes all of them in one call (on an accelerator, one launch for the tick instead of one
    // per block and layer). Deques: the reads point into their elements.
    std::deque<PendingBlock> pending;
    std::deque<BlockStreams> earlier;  // the streams of blocks other than a layer's last
    std::vector<KvLayout::RowsToHash> reads;
    for (int l = 0; l < n_layers; ++l) {
        LayerMemo& memo = rows_[size_t(l)];
        const size_t blocks = row_blocks(s, l);
        const ChunkRevisions::RowSpan maps_renewed =
            s.maps.rows_renewed_since(size_t(l), memo.maps_revision);
        const ChunkRevisions::RowSpan cache_renewed =
            s.cache.rows_renewed_since(l, memo.rows_revision);
        const size_t unchanged =
            std::min({memo.blocks.size(), blocks, ChunkRevisions::first_block(maps_renewed),
                      ChunkRevisions::first_block(cache_renewed)});
        memo.blocks.resize(blocks);
        memo.digests.resize(blocks);
        for (size_t c = unchanged; c < blocks; ++c) {
            const BlockRevisions now{s.maps.block_revision(size_t(l), c),
                                     s.cache.block_revision(l, c)};
            BlockRevisions& then = memo.blocks[c];
            if (then.maps == now.maps && then.cache == now.cache) continue;
            then = now;
            PendingBlock& p = pending.emplace_back(PendingBlock{l, c, {}, nullptr});
            if (form.blocks == BlockDigest::Streams) {
                p.streams = &read_streams(s, l, c, memo, earlier.emplace_back(),
                                          maps_renewed.first_changed(),
                                          cache_renewed.first_changed(), reads);
                continue;
            }
            p.head = row_block_head(s.maps[size_t(l)], s.cache.rows(l), c);
            const int first = int(c) * kRevisionBlockRows;
            const int cache_end = std::clamp(s.cache.rows(l), first, first + kRevisionBlockRows);
            if (cache_end > first) reads.push_back({l, first, cache_end, &p.head.state()});
        }
        memo.maps_revision = s.maps.revision(size_t(l));
        memo.rows_revision = s.cache.rows_revision(l);
    }
    s.cache.hash_stored_rows(reads);
    for (const PendingBlock& p : pending)
        rows_[size_t(p.layer)].digests[p.block] =
            p.streams ? streams_digest(*p.streams) : p.head.digest();
    for (int l = 0; l < n_layers; ++l) {
        f.value(s.maps[size_t(l)].rows());
        f.value(s.cache.rows(l));
        const std::vector<uint64_t>& digests = rows_[size_t(l)].digests;
        f.bytes(digests.data(), digests.size() * sizeof(uint64_t));
    }
    return f.digest();
}

uint64_t stream_state_hash(const StateParts& s) {
    StreamHash f;
    f.value(s.policy);
    const int n_layers = s.cache.n_layers();
    // Each layer's brightness column read through its chunk's data, taken once per chunk of
    // records (a lookup per record and layer was a tenth of a tick at 100,000 rows).
    constexpr size_t kChunk = size_t(Ledger::kChunkRecords);
    std::vector<const float*> brightness(static_cast<size_t>(n_layers));
    for (const LedgerEntry& e : s.ledger.entries()) {
        const size_t id = size_t(e.id);  // == its index in the ledger
        if (id % kChunk == 0)
            for (int l = 0; l < n_layers; ++l)
                brightness[size_t(l)] = s.ledger.brightness_chunks(l)[id / kChunk]->data();
        hash_record(f, e);
        for (int l = 0; l < n_layers; ++l) f.value(brightness[size_t(l)][id % kChunk]);
        hash_standing(f, e);
    }
    for (int l = 0; l < n_layers; ++l) {
        const LayerMap& map = s.maps[size_t(l)];
        f.value(map.rows());
        f.bytes(map.pos2ledger.data(), map.pos2ledger.size() * sizeof(int64_t));
        f.bytes(map.rope_pos.data(), map.rope_pos.size() * sizeof(int32_t));
        f.value(s.cache.rows(l));
        hash_stored_rows(f, s.cache, l, 0, s.cache.rows(l));
    }
    return f.digest();
}

}  // namespace kvw
