#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "core/state/action.h"

namespace kvw {

// What the soak's random action lists are made against: every layer's rows and tokens (the
// reference sequence the soak keeps in plain vectors), the capacity and the vocabulary.
struct SoakSequence {
    std::vector<std::vector<int32_t>> tokens;  // [layer][row]
    int capacity = 0;
    int vocab_size = 0;
    int32_t bos_id = -1;  // the model's BOS: nothing may be inserted before it (-1: none)

    int rows(int layer) const { return int(tokens[size_t(layer)].size()); }
    bool starts_with_bos(int layer) const {
        return bos_id >= 0 && rows(layer) > 0 && tokens[size_t(layer)][0] == bos_id;
    }
    int max_rows() const;
};

// A uniform draw from [lo, hi]: the soaks' one way to pick a number.
int uniform(std::mt19937_64& rng, int lo, int hi);

// A list pre-flight must accept: one to three delete / insert / replace_pair actions on every
// layer or on some, with spans that do not meet on a shared layer, inside every affected layer
// (and no insert before a BOS in row 0),
// leaving at least `min_rows` rows and room for `room` more rows after the list (the tick's own
// token). Appends (add) too when `with_adds`.
ActionList valid_actions(std::mt19937_64& rng, const SoakSequence& seq, int min_rows, int room,
                         bool with_adds);

// A list pre-flight must refuse: a valid list with one fault mixed in (a position, layer or
// token out of range, a layer listed twice, a pair out of order, an empty replacement, two
// actions on the same row, more rows than the capacity).
ActionList invalid_actions(std::mt19937_64& rng, const SoakSequence& seq);

// The list applied to the reference sequence as ARCHITECTURE.md describes Step 4: positions
// are those before the list, so the edits go from the highest first position down, then the
// adds append to every layer. Written with plain vector edits, independent of the state code.
void apply_to_reference(SoakSequence& seq, const ActionList& list);

}  // namespace kvw
