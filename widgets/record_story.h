#pragma once
#include <cstdint>
#include <optional>
#include <string>
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

// One moment of a record's life (ARCHITECTURE §16): born at a tick, or left some layers at a
// tick for one reason (replaced, deleted, a policy's eviction, ...).
struct RecordTick {
    int64_t tick = 0;
    std::string what;         // "born (generated)", or removal_reason_name() of the reason
    std::vector<int> layers;  // the layers it left then, ascending; empty for its birth
};

// The ticks of record `id` from the ledger, in tick order (birth first at its tick): its birth,
// then one entry per (tick, reason) with the layers it left for it. Empty for an unknown id.
std::vector<RecordTick> record_ticks(const Frame& frame, int64_t id);

// "layer 3", "layers 0–3", "layers 0–2, 5": runs of layers for a label.
std::string layer_runs_text(const std::vector<int>& layers);

// "live", "removed", "under a gist", "never held".
const char* row_status_text(RowStatus status);

}  // namespace kvw
