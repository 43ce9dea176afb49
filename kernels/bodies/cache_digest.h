#pragma once
// The state digest's per-block part on the device (docs/ARCHITECTURE.md §6.1): one XXH64 digest
// per block of block_rows logical rows of a layer, over the bytes StateDigest reads for it. The
// block's head (its map rows, which the host keeps) is hashed on the host by row_block_head
// (core/state/state_digest.h) and handed over as the XXH64 state it leaves (`begun`); the body
// goes on from there over the block's stored rows, K bytes, K scales, V bytes, V scales row after
// row (KvLayout::append_stored_rows' order), and finishes it. XXH64's digest depends only on the
// bytes in order, so the number is row_block_digest's bit for bit; the host combines the block
// digests into the state hash as StateDigest::combine does. One thread per block.
#include <cstdint>

#include "core/math/cache_plane.h"
#include "core/math/xxh64.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct CacheBlockDigest {
    CachePlanes planes;
    const int32_t* index = nullptr;     // [rows] physical row of each logical row; null: itself
    const Xxh64State* begun = nullptr;  // [blocks]: each block's head hashed
    int first_block = 0;
    int blocks = 0;
    int rows = 0;  // the layer's logical rows
    int block_rows = 0;
    uint64_t* out = nullptr;  // [blocks]
    // [blocks] or null: each block's state before it is finished, for a stream that goes on
    // over rows appended later (StateDigest's streams form, KvRowDevice::hash_rows).
    Xxh64State* ended = nullptr;

    Launch shape() const { return cover(size_t(blocks), 64); }
    KVW_HD void operator()(const At& a) const {
        const size_t b = a.x();
        if (b >= size_t(blocks)) return;
        Xxh64State s = begun[b];
        const int64_t first = (int64_t(first_block) + int64_t(b)) * block_rows;
        const int64_t end = first + block_rows < rows ? first + block_rows : int64_t(rows);
        for (int64_t r = first; r < end; ++r) {
            const size_t p = index ? size_t(index[r]) : size_t(r);
            for (const CachePlane& h : planes.kv) {
                s.update(h.row(p), h.data_bytes());
                s.update(h.scale(p), h.scale_bytes());
            }
        }
        if (ended) ended[b] = s;
        out[b] = s.digest();
    }
};

// Blocks [first_block, first_block + blocks) of a layer of `rows` logical rows.
inline CacheBlockDigest cache_block_digest(const CachePlanes& planes, const int32_t* index,
                                           const Xxh64State* begun, int first_block, int blocks,
                                           int rows, int block_rows, uint64_t* out,
                                           Xxh64State* ended = nullptr) {
    for (const CachePlane& p : planes.kv) check_cache_plane(p, "digested");
    if (block_rows <= 0 || first_block < 0 || blocks < 0 || rows < 0)
        throw std::invalid_argument("cache kernel: malformed digest blocks");
    if (!index && rows > planes.kv[0].capacity)
        throw std::out_of_range("cache kernel: digesting " + std::to_string(rows) + " rows of " +
                                std::to_string(planes.kv[0].capacity));
    if (blocks > 0 && (!begun || !out))
        throw std::invalid_argument("cache kernel: block digests from or into nothing");
    return CacheBlockDigest{planes, index,      begun, first_block, blocks,
                            rows,   block_rows, out,   ended};
}

}  // namespace kvw::kern
