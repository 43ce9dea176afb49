#include "widgets/window_reach.h"

#include <algorithm>
#include <cstdint>

#include "core/math/sliding_window.h"

namespace kvw {

bool out_of_reach(const Frame& frame, int layer, int row) {
    const int window = frame.model.window_of(layer);
    if (window <= 0 || layer < 0 || layer >= int(frame.layers.size())) return false;
    const LayerFrame& lf = frame.layers[size_t(layer)];
    if (row < 0 || size_t(row) >= lf.rope_pos.size()) return false;
    return !in_sliding_window(frame.next_position, lf.rope_pos[size_t(row)], window);
}

std::vector<RowWindow> out_of_reach_runs(const Frame& frame, int layer, RowWindow window) {
    std::vector<RowWindow> runs;
    if (frame.model.window_of(layer) <= 0 || layer < 0 || layer >= int(frame.layers.size()))
        return runs;
    const int rows = frame.layers[size_t(layer)].rows();
    const int last = std::min(window.last, rows);
    for (int row = std::max(window.first, 0); row < last; ++row) {
        if (!out_of_reach(frame, layer, row)) continue;
        if (!runs.empty() && runs.back().last == row)
            runs.back().last = row + 1;
        else
            runs.push_back({row, row + 1});
    }
    return runs;
}

}  // namespace kvw
