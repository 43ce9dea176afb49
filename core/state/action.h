#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/mirror/removal.h"

namespace kvw {

// The Step 4 actions of an action_list (ARCHITECTURE §2.1), in the positions of the cache as it
// was when the list was made. `layers` restricts an action to some layers; empty = all layers.
struct ReplacePairAction {
    int original_pos1 = 0;
    int original_pos2 = 0;  // pos1 < pos2
    std::vector<int32_t> new_token_ids;
    bool operator==(const ReplacePairAction&) const = default;
};
struct AddAction {
    int32_t token_id = 0;
    bool operator==(const AddAction&) const = default;
};
// Not in the original format: new tokens before row `pos` (pos == rows appends after the
// last row), their K/V computed with rows [0, pos) as context.
struct InsertAction {
    int pos = 0;
    std::vector<int32_t> token_ids;
    bool operator==(const InsertAction&) const = default;
};

// `cause` (JSON: optional "reason" and "score") is what the ledger records about the dropped
// row: a selective policy's deletes say why and with which score (docs/ARCHITECTURE.md §12).
struct DeleteAction {
    DeleteAction() = default;
    // Not explicit: DeleteAction{pos} reads as it did before the cause existed.
    DeleteAction(int at, RemovalCause why = {}) : pos(at), cause(why) {}  // NOLINT
    int pos = 0;
    RemovalCause cause;
    bool operator==(const DeleteAction&) const = default;
};

// wLOD (ARCHITECTURE §14): the whole aligned block of `level` (1: K tokens, 2: K² tokens) whose
// first row is `pos` becomes one gist row; expand turns the gist row at `pos` into its children.
struct CollapseAction {
    int pos = 0;
    int level = 1;
    bool operator==(const CollapseAction&) const = default;
};
struct ExpandAction {
    int pos = 0;
    bool operator==(const ExpandAction&) const = default;
};

struct Action {
    std::variant<ReplacePairAction, AddAction, DeleteAction, InsertAction, CollapseAction,
                 ExpandAction>
        op;
    std::vector<int> layers;  // empty: every layer
    bool operator==(const Action&) const = default;
};

using ActionList = std::vector<Action>;

}  // namespace kvw
