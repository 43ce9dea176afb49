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
    const RowBuffer& slab = ring.slab_buffer();
    if (!slab.scaled(false) && !slab.scaled(true)) return f;
    const size_t groups = size_t(ring.storage().groups);
    std::vector<int> held(size_t(s.rows));
    for (int j = 0; j < s.rows; ++j) held[size_t(j)] = ring.slab_row(layer, j);
    std::vector<float> scales(held.size() * groups);
    f.scale_max.assign(size_t(f.size), 0.0f);
    for (const bool v : {false, true}) {
        if (!slab.scaled(v)) continue;
        slab.row_scales(layer, v, held, scales.data());
        for (size_t j = 0; j < held.size(); ++j)
            for (size_t g = 0; g < groups; ++g)
                f.scale_max[size_t(held[j])] =
                    std::max(f.scale_max[size_t(held[j])], scales[j * groups + g]);
    }
    return f;
}

}  // namespace kvw
