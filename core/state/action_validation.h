#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/state/action.h"

namespace kvw {

// What pre-flight validation needs to know about the sequence an action list will edit.
struct SequenceShape {
    std::vector<int> rows_per_layer;  // live rows of each layer before the list
    int capacity = 0;                 // rows each layer can hold
    // A ring layout (ARCHITECTURE §17): adds overwrite the oldest rows instead of overfilling;
    // the StateManager refuses only an append longer than the ring.
    bool adds_overwrite = false;
    int vocab_size = 0;
    // wLOD (ARCHITECTURE §14): [layer][row] 0 for a token row, else the gist's level; empty
    // when unknown (then collapse / expand are checked by the StateManager alone). A layer
    // without a gist row has no levels (every row is a token; see row_level): every tick
    // asks, and 22 x 100,000 zeros twice a tick were a tenth of its bookkeeping.
    std::vector<std::vector<uint8_t>> row_levels = {};
    int wlod_k = 0;
    // Per layer: whether row 0 holds the model's BOS token. Nothing may be inserted before it
    // (the model was trained with BOS first; rows before it would be attended as a prefix it
    // never saw). Empty: no layer starts with BOS.
    std::vector<uint8_t> starts_with_bos = {};
    // Per layer: rows [0, n) that no collapse may fold into a gist (StateManager::pinned_rows:
    // BOS, a ring's sinks). Empty: none.
    std::vector<int> pinned_rows = {};

    // The level of `row` in `layer` (0: a token). Precondition: row_levels is known and
    // row < rows_per_layer[layer].
    uint8_t row_level(int layer, int row) const {
        const std::vector<uint8_t>& levels = row_levels[size_t(layer)];
        return levels.empty() ? 0 : levels[size_t(row)];
    }
};

enum class ValidationRule {
    LayerOutOfRange,       // a "layers" entry outside [0, layer count)
    DuplicateLayer,        // a layer listed twice in one action
    PositionOutOfRange,    // a position outside [0, rows) of an affected layer
    PairOrder,             // replace_pair with original_pos1 >= original_pos2
    EmptyReplacement,      // replace_pair with no new_token_ids, insert with no token_ids
    TokenOutOfVocabulary,  // a token id outside [0, vocab_size)
    Overlap,               // two actions touch the same rows on a common layer
    CapacityExceeded,      // a layer would hold more than `capacity` rows
    TooManyActions,        // the list is longer than kMaxActionsPerList; nothing else checked
    MoreFaults,            // the last entry when faults went unlisted: `unlisted` says how many
    WlodLevel,             // collapse to a level other than 1 or 2
    NotABlock,             // collapse where no whole aligned block of that level starts
    NotAGist,              // expand of a token row
    EditBeforeGist,        // a token edit at or before a gist row (it would shift the blocks)
    InsertBeforeBos,       // an insert at row 0 of a layer whose row 0 holds BOS
    PinnedRow,             // a collapse whose block holds BOS or a ring sink row
    WlodOff,               // a collapse in a sequence with no wLOD block size K (kNoWlodK)
};

// Why a collapse is refused where no K was chosen (pre-flight's WlodOff, the primitive's
// StateError): it once ran with a hidden K of 32.
inline constexpr const char* kNoWlodK =
    "no wLOD block size K: turn wLOD on first (--wlod-k K, .kvs wlod K)";

// Longer lists are refused outright: no tick edits that many places, and the check stays
// cheap whatever a file or a script feeds it.
inline constexpr size_t kMaxActionsPerList = size_t(1) << 18;
// Faults listed one by one; beyond them a MoreFaults entry counts the rest.
inline constexpr size_t kMaxListedFaults = 20;

const char* validation_rule_name(ValidationRule rule);

struct ValidationError {
    ValidationRule rule;
    int action_index = -1;  // index in the list as given
    std::string field;      // "original_pos2", "new_token_ids[1]", "layers[0]", ...
    std::string message;    // one line naming the action, the field and the values
    int other_index = -1;   // Overlap: the earlier action it collides with
    int64_t unlisted = 0;   // MoreFaults: the faults found beyond the listed ones
};

// The rows an action touches in each of its layers: [pos, pos] for delete and insert, [pos1, pos2]
// for replace_pair (the rows between are included, because the replacement closes the gap at pos1
// and so moves them), none for add. Two actions overlap when their spans intersect and they
// share a layer (an empty `layers` shares every layer). The same test serves validation and
// conflict resolution, so a merged list never fails pre-flight for an overlap it could have
// dropped. (Pre-flight counts only existing layers; a listed layer that does not exist is a
// fault of its own.)
bool actions_overlap(const Action& a, const Action& b);

// Pre-flight check of a whole list against the sequence it will edit; empty when the list can
// be applied. Positions are those of the sequence before the list (ARCHITECTURE §2.1). Rules:
// layers in range and unique; positions inside every affected layer; no insert before a BOS in
// row 0; pos1 < pos2 (any two rows: see ARCHITECTURE §6 for a pair that is not adjacent); non-empty
// replacements; token ids in the vocabulary; no two actions overlapping (actions_overlap); and
// capacity: applying the list in order_for_application() order, no affected layer ever holds
// more than `capacity` rows (replace_pair counted as one step: -2 then +n, so only its result
// counts). Checking the peak, not just the end, matters because a growing replace may be
// applied before a shrinking delete below it. Every fault is found, not just the first: an
// action overlapping earlier ones is one fault naming the first of them (other_index); the
// first kMaxListedFaults are listed and a MoreFaults entry counts the rest. O(n log n) in the
// list's length (times the layer count for actions on every layer).
std::vector<ValidationError> validate_action_list(const ActionList& list,
                                                  const SequenceShape& shape);

// The order in which to apply a valid list so that no action shifts a row that a later one
// still refers to: positional actions (replace_pair, delete) by descending first position
// (original_pos1 or pos), ties kept in list order, then every add in list order. Why this is
// safe: on each layer, overlap-free spans are disjoint, so an action applied first lies wholly
// above every later one that shares its layer, and edits only move rows above their first
// position. Returns indices into `list`.
std::vector<int> application_order(const ActionList& list);
ActionList order_for_application(const ActionList& list);

}  // namespace kvw
