#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/cache/cache_layout.h"
#include "core/cache/ring_options.h"
#include "core/math/kv_quant.h"
#include "core/policy/policy_options.h"
#include "core/state/action.h"
#include "core/state/rope_policy.h"

namespace kvw {

// The commands of the .kvs screenshot-script language (ARCHITECTURE §6): every toolbar and view
// action of the workbench window, plus expectations and screenshots. README has the reference.
enum class ScriptCommandKind {
    Load,             // load SPEC
    Backend,          // backend cpu|cuda|auto      (for the following loads)
    Prompt,           // prompt TEXT
    Step,             // step N
    Inject,           // inject JSON                (queued for the next tick)
    Apply,            // apply JSON                 (Step 4 now)
    ReplaceText,      // replace-text ROW1 ROW2 TEXT (tokenized, queued)
    InsertText,       // insert-text ROW TEXT        (tokenized, queued)
    Rebuild,          // rebuild
    Drift,            // drift
    Policy,           // policy NAME                (proposer)
    Budget,           // budget SINK BUDGET WINDOW [SEED]  (a selective policy's S, B, W)
    Gate,             // gate FILE                  (smartkv's gate sidecar)
    Ab,               // ab POLICY S B W [SEED] | ab off  (A/B mode: policy B beside the session's)
    Rope,             // rope final_index|reindex|original
    KvTypes,          // kv-types K V               (f32|f16|bf16|int8|fp8 each)
    Layout,           // layout NAME [MODE SINKS TOKENS_PER_FRAME [T]]  (ring: ARCHITECTURE §17)
    Guard,            // guard on|off
    Wlod,             // wlod K [W_MAX]             (K 0: off; ARCHITECTURE §14)
    WlodMax,          // wlod-max W_MAX             (the budget alone)
    GistNet,          // gist-net FILE|mean-pool    (a learned net's sidecar, or mean pooling)
    Layer,            // layer N
    Select,           // select ROW
    View,             // view NAME
    Set,              // set VIEW CONTROL VALUE     (a named control inside a view)
    Click,            // click VIEW CONTROL
    Controls,         // controls VIEW              (logs the view's named controls)
    Help,             // help [COMMAND]             (logs the language reference)
    ExpectInvariant,  // expect invariant NAME pass|fail
    ExpectRows,       // expect rows LAYER N
    ExpectTick,       // expect tick N
    Shot,             // shot NAME [VIEW]
    Export,           // export VIEW FILE           (FILE: NAME.csv|json|png, under --shots DIR)
    ExportBundle,     // export-bundle NAME         (the folder DIR/NAME)
    WaitIdle,         // wait-idle
    Desync,           // desync LAYER ROW           (test hook: breaks one mirror row)
    Undo,             // undo [N]                   (ARCHITECTURE §15)
    Redo,             // redo [N]
    Snapshot,         // snapshot NAME              (NAME in text)
    Restore,          // restore NAME
    Fork,             // fork TICK                  (a second window on the fork)
    ShowTick,         // show-tick TICK             (the views show a past tick, §16)
    Live,             // live                       (the views show the live session again)
};

// The command word as written in scripts ("wait-idle", "expect invariant", ...).
const char* script_command_name(ScriptCommandKind kind);

// One parsed line. Only the fields its kind names are set.
struct ScriptCommand {
    ScriptCommandKind kind = ScriptCommandKind::WaitIdle;
    int line = 0;        // 1-based line in the script
    std::string source;  // the line as written, trimmed, for messages
    std::string text;    // SPEC, TEXT, NAME (backend, proposer, view, invariant, shot, CONTROL),
                         // help's COMMAND, gist-net's FILE (empty: mean-pool)
    std::string view;    // shot NAME VIEW (empty: the whole window), set/click/controls VIEW
    std::string value;   // set .. VALUE
    int layer = -1;      // layer, expect rows, desync
    int row = -1;        // select, desync, replace-text ROW1, insert-text
    int row2 = -1;       // replace-text ROW2
    int64_t count = 0;   // step N, expect rows / tick .. N, undo / redo N, fork / show-tick TICK,
                         // wlod-max W_MAX, wlod .. W_MAX, layout ring .. T (0: keep)
    int wlod_k = 0;      // wlod K
    bool flag = false;   // guard on; expect invariant .. pass; ab on
    RopePolicy rope = RopePolicy::FinalIndex;
    KvType k_type = KvType::F32;  // kv-types
    KvType v_type = KvType::F32;
    CacheLayout layout = CacheLayout::Contiguous;  // layout
    RingOptions ring;                              // layout ring ..
    ActionList actions;                            // inject, apply
    PolicyOptions policy;  // budget, ab (the gate is the `gate` command's text)
};

struct Script {
    std::string file;  // where it came from ("<text>" when parsed from a string)
    std::vector<ScriptCommand> commands;
};

}  // namespace kvw
