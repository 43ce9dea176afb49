#pragma once
// The state digest's read of the stored rows on the device (docs/ARCHITECTURE.md §6.1,
// KvRowDevice::hash_rows): runs of physical rows, each fed to an XXH64 stream of its own that
// goes on from the state the host left it in (a block's head, or the rows the block's stream
// read before) and is left in the state it ends in, for the host to finish or to go on from.
// A run's bytes are K bytes, K scales, V bytes, V scales row after row
// (KvLayout::append_stored_rows' order); XXH64 depends only on the bytes in order, so every state
// is the host's bit for bit. Every block a digest reads again, of every layer, is one run of one
// launch. One thread per run.
#include <cstdint>
#include <stdexcept>

#include "core/math/cache_plane.h"
#include "core/math/xxh64.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct CacheRowHashes {
    const CachePlanes* planes = nullptr;  // [runs]: each run's layer
    const int32_t* rows = nullptr;        // the runs' physical rows, one run after another
    const int32_t* ends = nullptr;        // [runs]: run r is rows[r ? ends[r - 1] : 0, ends[r])
    Xxh64State* states = nullptr;         // [runs]: read, then written
    int runs = 0;

    Launch shape() const { return cover(size_t(runs), 64); }
    KVW_HD void operator()(const At& a) const {
        const size_t r = a.x();
        if (r >= size_t(runs)) return;
        Xxh64State s = states[r];
        for (int32_t i = r ? ends[r - 1] : 0; i < ends[r]; ++i) {
            const size_t p = size_t(rows[i]);
            for (const CachePlane& h : planes[r].kv) {
                s.update(h.row(p), h.data_bytes());
                s.update(h.scale(p), h.scale_bytes());
            }
        }
        states[r] = s;
    }
};

// The arrays may be device memory: the caller checks the planes and the rows against them.
inline CacheRowHashes cache_row_hashes(const CachePlanes* planes, const int32_t* rows,
                                       const int32_t* ends, Xxh64State* states, int runs) {
    if (runs < 0) throw std::invalid_argument("cache kernel: a negative number of hash runs");
    if (runs > 0 && (!planes || !ends || !states))
        throw std::invalid_argument("cache kernel: hash runs from or into nothing");
    return CacheRowHashes{planes, rows, ends, states, runs};
}

}  // namespace kvw::kern
