#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/session/frame.h"

namespace kvw {

// One layer's part of a ledger record's story: where the record stands there now and, if it
// left, when, why and with what score (docs/ARCHITECTURE.md §12).
struct RecordInLayer {
    int layer = 0;
    RowStatus status = RowStatus::NeverHeld;
    int row = -1;                // the row holding it; -1 unless live
    float brightness = 0;        // of that row, when live
    int32_t rope_pos = -1;       // RoPE phase of its K, when live
    std::optional<float> drift;  // when live and drift was measured for this state
    Removal removal;             // tick -1: it has not left this layer
    // Whether the ledger's status and the cache rows agree (live <=> a row holds it). When they
    // do not, the mirror has drifted from the cache: the ids_live invariant fails too, and the
    // view shows the disagreement instead of hiding it.
    bool agrees = true;
};

// The per-layer story of record `id` in `frame`: one entry per layer. Empty for an id the
// ledger does not have.
std::vector<RecordInLayer> record_story(const Frame& frame, int64_t id);

// "live", "removed", "under a gist", "never held".
const char* row_status_text(RowStatus status);

}  // namespace kvw
