#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cache/cache_layout.h"
#include "core/cache/ring_options.h"
#include "core/cache/ring_ranges.h"
#include "core/math/kv_quant.h"
#include "core/mirror/ledger.h"
#include "core/model/tokenizer.h"
#include "core/policy/layer_selection.h"
#include "core/policy/policy_options.h"
#include "core/session/shared_rows.h"
#include "core/state/action.h"
#include "core/state/invariant_result.h"
#include "core/state/rope_policy.h"
#include "core/state/tick_result.h"
#include "core/wlod/wlod_node.h"

namespace kvw {

struct AbFrame;    // core/eval/ab_compare.h
class RingLayout;  // core/cache/ring_layout.h
// A ring layer's slab (docs/ARCHITECTURE.md §17), for the trace and the views.
struct RingFrame {
    int size = 0;           // T, the layer's slab rows
    int sinks = 0;          // S
    int filled = 0;         // logical rows held
    int head = 0;           // ring slot of the oldest ring row
    int write_pointer = 0;  // ring slot the next ring row goes to
    int64_t offset = 0;     // rows written since the reset
    int64_t overwritten = 0;
    int64_t wraps = 0;
    RingRanges last_read;          // the two slab ranges the last read assembled
    std::vector<float> scale_max;  // [slab row] largest K or V scale; empty for unscaled types
    // [slab row] K and V values clipped when the row held there was encoded (RowBuffer's
    // per-row counters); empty when neither type can clip (f32). Free slots count 0.
    std::vector<uint32_t> saturated;
};

// The frame of one layer of a ring (core/session/ring_frame.cpp).
RingFrame ring_frame(const RingLayout& ring, int layer);

// One layer of the coupled state, row by row, as the views draw it. The mirror's rows are shared
// with the Frame before while they did not change (ARCHITECTURE §7.1).
struct LayerFrame {
    SharedRows<int64_t> pos2ledger;  // [row] ledger id held by the row
    SharedRows<int32_t> rope_pos;    // [row] RoPE phase of the row's K
    // [ledger id] every record's brightness in this layer, shared with the ledger by chunk
    ChunkedRecords<float> record_brightness;
    std::vector<float> drift;  // [row] max(K, V) relative drift; empty when not measured
    int first_stale_row = -1;  // from the last drift measurement; -1: none or unmeasured
    // What encoding the layer's K and V rows met since the cache was made (saturated values,
    // NaN inputs), and the NaN / infinite scales among its rows now.
    QuantStats k_stats;
    QuantStats v_stats;
    int64_t nonfinite_scales = 0;
    std::optional<RingFrame> ring;  // under the ring layout
    // Rows [0, n) no collapse folds into a gist: BOS, a ring's sinks (StateManager::pinned_rows).
    int pinned_rows = 0;

    int rows() const { return int(pos2ledger.size()); }
    // The brightness of the record that `row` holds; 0 for a row without one. row < rows().
    float brightness(size_t row) const {
        const int64_t id = pos2ledger[row];
        return id >= 0 && size_t(id) < record_brightness.size() ? record_brightness[size_t(id)]
                                                                : 0.0f;
    }
};

// A ledger record as the ledger keeps it: a Frame holds the ledger's own record chunks
// (Ledger::record_chunks), which the ledger copies before its next write to one of them.
using LedgerRecord = LedgerEntry;

// Every ledger record, index == id, in chunks that Frames share while unchanged.
using LedgerRecords = ChunkedRecords<LedgerRecord>;

// One named invariant over all layers: the first failing layer decides its row and detail.
struct InvariantStatus {
    std::string name;
    bool passed = true;
    int64_t last_held_tick = -1;  // last tick (or edit) after which it held; -1: never
    int layer = -1;
    int row = -1;
    std::string detail;
    // Why it does not apply now, when no layer's check applies (InvariantResult); it then
    // counts as passed.
    std::string not_applicable = {};
};

// Milliseconds spent in each step of the last tick (ARCHITECTURE §2.1).
struct StepTimings {
    double sample_ms = 0;      // Step 1
    double brightness_ms = 0;  // Step 2
    double propose_ms = 0;     // Step 3 (proposer + conflict resolution + its bookkeeping)
    double apply_ms = 0;       // Step 4 (pre-flight + edits + append)
    double total_ms = 0;
    double forward_ms = 0;  // Step 4's forward passes (a part of apply_ms)
};

struct ModelSummary {
    std::string source;        // path or "synthetic:tiny"
    std::string file_type;     // e.g. "gguf F32"
    std::string architecture;  // the family's row of core/model/architecture.h: "llama", "qwen2"
    int n_layers = 0;
    int n_embd = 0;
    int n_heads = 0;
    int n_kv_heads = 0;
    int vocab_size = 0;
    // [layer]: the sliding window in positions, 0 = none; empty when no layer has one
    // (ModelConfig::layer_window).
    std::vector<int32_t> layer_window;

    int window_of(int layer) const {
        return size_t(layer) < layer_window.size() ? layer_window[size_t(layer)] : 0;
    }
};

// One layer's wLOD tree as the tree view draws it (ARCHITECTURE §14): the nodes of levels 0, 1, 2
// (gist vectors left out) and what the last change invalidated.
struct WlodLayerFrame {
    std::vector<WlodNode> levels[3];
    Invalidation last;
};

// An immutable snapshot of a Session for the UI (ARCHITECTURE §6): built on the worker thread,
// handed to the views by queued signal, never changed afterwards.
struct Frame {
    int64_t tick = 0;         // ticks completed since the prompt (0: just prefilled)
    uint64_t state_hash = 0;  // StateManager::state_hash()
    ModelSummary model;
    // The model's tokenizer (shared with the model, immutable): the views show token ids as
    // pieces and text as the tokens it becomes (text_tokens) without asking the worker.
    std::shared_ptr<const Tokenizer> tokenizer;
    std::string backend;  // "cpu", "cuda"
    // An accelerator's name and the memory in use on it ("NVIDIA H100 (sm_90), 1.4 of 79.1 GiB
    // in use"); empty on the host, whose memory the status bar does not show.
    std::string device;
    int capacity = 0;  // rows per layer
    CacheLayout layout = CacheLayout::Contiguous;
    RingOptions ring_options;  // the ring layout's (kept while another layout runs)
    std::string k_type;        // storage types of the cached rows: "f32", "bf16", "fp8", ...
    std::string v_type;
    RopePolicy rope_policy = RopePolicy::FinalIndex;
    std::string proposer;  // a name of policy_table()
    PolicyOptions policy;  // its budgets (used by the selective ones)
    // [layer]: a selective policy's sinks / window / high-value rows; empty for the others
    std::vector<LayerSelection> selection;
    bool guard = true;
    std::string prompt;
    // The rope position the next appended token takes (StateManager::next_position): a
    // windowed layer's rows at or before next_position − window are out of its reach.
    int32_t next_position = 0;

    std::vector<LayerFrame> layers;
    LedgerRecords ledger;  // every record ever, index == id
    std::vector<InvariantStatus> invariants;
    int wlod_k = 0;                         // 0: wLOD off
    int64_t wlod_max = 0;                   // W_max when on; 0: no budget
    std::vector<WlodLayerFrame> wlod = {};  // [layer], when on
    float brightness_max = 255.0f;  // BrightnessParams::max: the top of the brightness scale

    bool drift_measured = false;  // layers[].drift belong to this state
    int first_diverging_layer = -1;
    float max_drift = 0;  // over layers and rows, when measured
    // Drift up to this is the storage types' rounding, not divergence: the tolerance of the
    // measurement, or while none is current the one the next would use (one step of the
    // coarser of k_type / v_type, kv_type_drift_tolerance).
    float drift_tolerance = 0;

    ActionList injected;      // actions queued for the next tick
    ActionList last_actions;  // the last tick's list in application order (edits, then adds)
    // [k]: the index of last_actions[k] in the list as given, which TickResult's failed_action
    // and rejections index (application_order() of that list); empty: the same order.
    std::vector<int> last_given_index;
    TickResult last_result;  // what Step 4 did with it
    std::string last_error;  // the last rejected command's message (pre-flight, range, ...)
    StepTimings timings;     // of the last tick

    // History (ARCHITECTURE §15): commands undo and redo can take, the named snapshots.
    int undo_depth = 0;
    int redo_depth = 0;
    std::vector<std::string> snapshots;

    // Policy A (this session's) against policy B on the same tokens, while the window's A/B
    // mode is on (the session's worker runs it: ARCHITECTURE §12); null when off.
    std::shared_ptr<const AbFrame> ab;

    bool all_invariants_pass() const {
        for (const InvariantStatus& s : invariants)
            if (!s.passed) return false;
        return true;
    }
};

using FramePtr = std::shared_ptr<const Frame>;

}  // namespace kvw
