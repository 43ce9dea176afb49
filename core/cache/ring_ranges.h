#pragma once

namespace kvw {

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
