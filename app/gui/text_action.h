#pragma once
#include <string>

#include "core/session/session.h"
#include "core/state/action.h"

namespace kvw {

// The action list for a text edit chosen in a view on `layer` (worker thread: it tokenizes).
//  "replace_pair": replace_pair(row1, row2, tokens of text).
//  "insert":       insert(row1, tokens of text): the text before row1 (row1 == rows: after
//                  the last row). Needs 1 <= row1 (row 0 holds BOS).
// The edit goes to every layer that holds the same records at those rows as `layer` (all
// layers while no per-layer edit has made them differ). Throws std::invalid_argument for an
// unknown kind, text without tokens, or rows outside the layer; the pre-flight check of
// inject/apply_now judges everything else.
ActionList text_action(const Session& session, const std::string& kind, int layer, int row1,
                       int row2, const std::string& text);

}  // namespace kvw
