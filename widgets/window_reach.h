#pragma once
#include <vector>

#include "core/session/frame.h"
#include "widgets/row_window.h"

namespace kvw {

// Sliding-window attention as the views show it (docs/ARCHITECTURE.md §2.1): the next appended
// token, at Frame::next_position, sees a row of a windowed layer only when the row's rope
// position lies fewer than the layer's window positions back. Rows it does not see are out of
// reach: still cached, but the model no longer attends to them.

// Whether `row` of `layer` is out of the next token's reach; false for a layer without a window
// and for a row the layer does not have.
bool out_of_reach(const Frame& frame, int layer, int row);

// The runs [first, last) of `layer`'s rows within `window` that are out of reach, in row order.
// Positions usually grow with the row, so this is one run; edits can make more.
std::vector<RowWindow> out_of_reach_runs(const Frame& frame, int layer, RowWindow window = {});

}  // namespace kvw
