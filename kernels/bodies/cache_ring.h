#pragma once
// The ring layout on the device (docs/ARCHITECTURE.md §17). CacheRingIndex writes the slab row of
// each of a range of logical rows (ring_slab_row, as RingLayout places them): the index a
// pointer-mode read assembles the window through (cache_gather.h). The roll turns the ring so its
// oldest row is at the first ring slot: the ring rows gathered through that index into a scratch
// and back, which is what RingLayout::normalise does before an edit in the middle of the window.
#include <cstdint>

#include "core/cache/ring_ranges.h"
#include "kernels/bodies/cache_gather.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct CacheRingIndex {
    int32_t* index = nullptr;  // [n]: slab row of logical row first + i
    int first = 0;
    int n = 0;
    int sinks = 0;
    int head = 0;        // ring slot of the oldest ring row
    int slot_count = 1;  // T - S

    Launch shape() const { return cover(size_t(n)); }
    KVW_HD void operator()(const At& a) const {
        const size_t i = a.x();
        if (i >= size_t(n)) return;
        index[i] = ring_slab_row(first + int(i), sinks, head, slot_count);
    }
};

// Where a ring layer stands: RingLayout's options and RingLayerState, as the host keeps them.
struct RingShape {
    int sinks = 0;
    int slot_count = 1;  // capacity - sinks
    int head = 0;
    int rows = 0;  // logical rows, sinks included
};

inline CacheRingIndex cache_ring_index(const RingShape& ring, int first, int n, int32_t* index) {
    if (ring.sinks < 0 || ring.slot_count <= 0 || ring.head < 0 || ring.head >= ring.slot_count ||
        ring.rows < 0 || ring.rows > ring.sinks + ring.slot_count)
        throw std::invalid_argument("cache kernel: malformed ring");
    if (first < 0 || n < 0 || first > ring.rows - n)
        throw std::out_of_range("cache kernel: ring rows [" + std::to_string(first) + ", " +
                                std::to_string(first + n) + ") outside [0, " +
                                std::to_string(ring.rows) + ")");
    if (n > 0 && !index) throw std::invalid_argument("cache kernel: ring index into nothing");
    return CacheRingIndex{index, first, n, ring.sinks, ring.head, ring.slot_count};
}

// The roll: the index of the ring rows, then the gather (through the scratch, the slab being
// both ends). `index`: room for the ring rows; `scratch`: planes of the slab's shape with as
// many rows. Afterwards the ring's head is slot 0 (the host's bookkeeping).
struct CacheRingRoll {
    CacheRingIndex index;
    CacheGatherPlan gather;
};

inline CacheRingRoll cache_ring_roll(const CachePlanes& slab, const RingShape& ring, int32_t* index,
                                     const CachePlanes& scratch) {
    for (const CachePlane& p : slab.kv)
        if (p.capacity != ring.sinks + ring.slot_count)
            throw std::invalid_argument(
                "cache kernel: a ring slab of other than sinks + slot_count rows");
    const int sinks = ring.rows < ring.sinks ? ring.rows : ring.sinks;
    const int ring_rows = ring.rows - sinks;
    return CacheRingRoll{cache_ring_index(ring, sinks, ring_rows, index),
                         cache_gather_rows(slab, sinks, slab, index, 0, ring_rows, &scratch)};
}

}  // namespace kvw::kern
