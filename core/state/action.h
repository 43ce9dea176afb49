#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace kvw {

// The Step 4 actions of an action_list (ARCHITECTURE §2.1), in the positions of the cache as it
// was when the list was made. `layers` restricts an action to some layers; empty = all layers.
struct ReplacePairAction {
    int original_pos1 = 0;
    int original_pos2 = 0;  // pos1 < pos2
    std::vector<int32_t> new_token_ids;
};
struct AddAction {
    int32_t token_id = 0;
};
struct DeleteAction {
    int pos = 0;
};

struct Action {
    std::variant<ReplacePairAction, AddAction, DeleteAction> op;
    std::vector<int> layers;  // empty: every layer
};

using ActionList = std::vector<Action>;

}  // namespace kvw
