#pragma once
#include <optional>

#include "core/session/frame.h"
#include "core/state/action.h"

namespace kvw {

// The wLOD edits one row of a layer offers (ARCHITECTURE §14), read off the Frame's tree of that
// layer; each on every layer, like `collapse` / `expand` in scripts. Unset where the row offers
// none (wLOD off, an incomplete block, a block already under a gist, a block holding BOS or a
// ring sink row, a token row to expand).
// The session's pre-flight still judges each: layers that differ may refuse it.
struct WlodRowEdits {
    std::optional<Action> collapse_l1;  // the level-0 block of token rows holding the row
    std::optional<Action> collapse_l2;  // the complete level-2 block holding it, not yet a gist
    std::optional<Action> expand;       // the row itself, when it is a gist
};
WlodRowEdits wlod_row_edits(const Frame& frame, int layer, int row);

}  // namespace kvw
