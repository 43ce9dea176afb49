#pragma once
#include "core/math/hd.h"

namespace kvw {

// Where logical row `row` of a ring layer sits in its slab (docs/ARCHITECTURE.md §17): the
// sinks at slab rows [0, sinks), ring row i at sinks + (head + i) mod slot_count. RingLayout and
// the device's ring kernels (kernels/bodies/cache_ring.h) both place rows by it.
KVW_HD int ring_slab_row(int row, int sinks, int head, int slot_count) {
    return row < sinks ? row : sinks + (head + row - sinks) % slot_count;
}

// The slab rows a read of a ring layer assembled, oldest -> newest after the sinks: the tail
// part [tail_begin, tail_end) (from the oldest ring slot towards the slab end), then the head
// part [head_begin, head_end) (the rows written after the pointer wrapped). Empty ranges are
// [x, x).
struct RingRanges {
    int tail_begin = 0, tail_end = 0;
    int head_begin = 0, head_end = 0;
    bool operator==(const RingRanges&) const = default;
};

}  // namespace kvw
