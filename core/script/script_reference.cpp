#include "core/script/script_reference.h"

namespace kvw {

namespace {

// Keep in the order of README's script table; scripts/README examples use the same words.
constexpr ScriptCommandDoc kReference[] = {
    {"load SPEC", "load a model (file, HF folder, builtin:default, synthetic:NAME)",
     "load synthetic:tiny"},
    {"backend NAME",
     "backend for the following loads: cpu, cpu:avx2 (a pinned CPU kernel), cuda, auto",
     "backend cpu:avx2"},
    {"prompt TEXT", "forget the sequence and prefill BOS + TEXT (tick 0)",
     "prompt In the beginning"},
    {"step N", "run N ticks", "step 3"},
    {"inject JSON", "queue an action or a list for the next tick",
     R"(inject {"action":"add","token_id":42})"},
    {"apply JSON", "apply an action list now (Step 4 alone, at the current tick)",
     R"(apply {"action":"delete","pos":2})"},
    {"collapse ROW LEVEL",
     "apply one wLOD collapse of the block starting at ROW, on every layer (never BOS or a ring "
     "sink; needs a K: wLOD turned on in this sequence)",
     "collapse 8 1"},
    {"expand ROW", "apply one wLOD expand of the gist row at ROW, on every layer", "expand 8"},
    {"replace-text ROW1 ROW2 TEXT",
     "queue replace_pair of two rows by the tokens of TEXT (at ROW1; rows between stay)",
     "replace-text 3 4 heaven"},
    {"insert-text ROW TEXT", "queue insert of the tokens of TEXT before ROW", "insert-text 2 and"},
    {"rebuild", "recompute the whole cache from the mirror", "rebuild"},
    {"drift", "measure drift against a fresh forward pass over the mirror", "drift"},
    {"policy NAME", "Step 3 proposer (the policy table)", "policy manual"},
    {"budget S B W [SEED]", "a selective policy's per-layer sinks, high-value rows, window",
     "budget 4 16 8"},
    {"gate FILE", "smartkv's gate sidecar (NAME.gate.gguf), read and checked at once",
     "gate resources/models/kjv-llama.gate.gguf"},
    {"ab POLICY S B W [SEED]",
     "A/B mode: policy B with its budgets beside the session's policy, on the same tokens",
     "ab streaming-llm 2 6 4"},
    {"ab off", "end the A/B mode", "ab off"},
    {"rope NAME", "RoPE position policy: final_index, reindex, original", "rope reindex"},
    {"kv-types K V", "storage types of cached K and V: f32, f16, bf16, int8, fp8",
     "kv-types bf16 fp8"},
    {"layout NAME [MODE S N [T]]",
     "cache layout; ring: mode roll|pointer|lut, S sinks, N tokens a tick decodes, T rows "
     "(default: the capacity)",
     "layout ring pointer 4 2 64"},
    {"guard on|off", "re-check invariants after every primitive", "guard on"},
    {"wlod K [W_MAX]", "wLOD tree on with K tokens per block and W_MAX rows (0: none); wlod 0: off",
     "wlod 8 96"},
    {"wlod-max W_MAX", "the wLOD budget alone (rows the focus policy keeps to; 0: none)",
     "wlod-max 64"},
    {"gist-net FILE|mean-pool",
     "wLOD gists from a learned net's sidecar, or the mean of the children", "gist-net mean-pool"},
    {"layer N", "select a layer in every view", "layer 1"},
    {"select ROW", "select a row of the selected layer in every view", "select 4"},
    {"view NAME", "bring a view's dock to the front", "view tokens"},
    {"set VIEW CONTROL VALUE", "set a control a view names (`controls VIEW` lists them)",
     "set maps map drift"},
    {"click VIEW CONTROL", "click a button a view names", "click actions apply"},
    {"controls VIEW", "log the named controls of a view, their kind and value", "controls maps"},
    {"help [COMMAND]", "log this list, or the lines of one command", "help step"},
    {"expect invariant NAME pass|fail", "the named invariant holds / fails now",
     "expect invariant ids_live pass"},
    {"expect rows LAYER N", "the state has N rows in LAYER", "expect rows 0 12"},
    {"expect tick N", "the state is at tick N", "expect tick 3"},
    {"shot NAME [VIEW]", "write NAME.png of the window or one view (compared with --compare)",
     "shot start tokens"},
    {"export VIEW FILE",
     "write a view's data (NAME.csv, NAME.json) or picture (NAME.png) under --shots",
     "export maps maps.csv"},
    {"export-bundle NAME",
     "write DIR/NAME/: window.png, every view's csv, json and png, trace.ndjson",
     "export-bundle session"},
    {"wait-idle", "wait until the session is idle", "wait-idle"},
    {"desync LAYER ROW", "test hook: point one mirror row at another record", "desync 1 3"},
    {"undo [N]", "take back the last N commands (default 1)", "undo 2"},
    {"redo [N]", "do the last N undone commands again", "redo"},
    {"snapshot NAME", "keep the session as it is under NAME", "snapshot before-edit"},
    {"restore NAME", "go back to the snapshot NAME", "restore before-edit"},
    {"fork TICK", "open a second window on a fork of the session at TICK", "fork 3"},
    {"show-tick TICK", "every view but the timeline shows the Frame of a past TICK (replayed)",
     "show-tick 2"},
    {"live", "the views show the live session again", "live"},
};

}  // namespace

std::span<const ScriptCommandDoc> script_reference() { return kReference; }

std::string script_help_text(std::string_view topic) {
    std::string text;
    for (const ScriptCommandDoc& doc : kReference) {
        const std::string_view usage = doc.usage;
        const bool match =
            topic.empty() || (usage.starts_with(topic) &&
                              (usage.size() == topic.size() || usage[topic.size()] == ' '));
        if (!match) continue;
        text += std::string(usage) + "  —  " + doc.summary + "\n";
    }
    return text;
}

}  // namespace kvw
