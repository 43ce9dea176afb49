#include <algorithm>

#include "core/session/frame.h"

#include "core/cache/ring_layout.h"
#include "core/math/half.h"

namespace kvw {

RingFrame ring_frame(const RingLayout& ring, int layer) {
    const RingLayerState& s = ring.state(layer);
    RingFrame f;
    f.size = ring.capacity();
    f.sinks = ring.options().sinks;
    f.filled = s.rows;
    f.head = s.head;
    f.write_pointer = ring.write_pointer(layer);
    f.offset = s.offset;
    f.overwritten = s.dropped;
    f.wraps = ring.wraps(layer);
    f.last_read = s.last_read;
    // Clipped values by slab row, where the held rows sit (free slots keep 0).
    if (RowBuffer::counter_bytes(ring.storage()) > 0) {
        f.saturated.assign(size_t(f.size), 0);
        for (int j = 0; j < s.rows; ++j) {
            const int p = ring.slab_row(layer, j);
            f.saturated[size_t(p)] = ring.slab_saturated(layer, p);
        }
    }
    // Scales by slab row, so that a scale that parted from its row shows where it sits.
    const KvRows k = ring.slab_k(layer), v = ring.slab_v(layer);
    if (!k.scale && !v.scale) return f;
    const int groups = ring.storage().groups;
    f.scale_max.assign(size_t(f.size), 0.0f);
    for (int j = 0; j < s.rows; ++j) {
        const size_t p = size_t(ring.slab_row(layer, j));
        for (const KvRows& half : {k, v})
            if (half.scale)
                for (int g = 0; g < groups; ++g)
                    f.scale_max[p] =
                        std::max(f.scale_max[p], half.scale[p * size_t(groups) + size_t(g)]);
    }
    return f;
}

}  // namespace kvw
