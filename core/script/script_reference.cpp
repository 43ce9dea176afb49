#include "core/script/script_reference.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "core/cache/kv_storage.h"
#include "core/policy/proposer.h"
#include "core/state/action_json.h"

namespace kvw {

namespace {

using K = ScriptCommandKind;

// --- argument readers shared by several commands ---

std::string known_proposer(LineReader& in, std::string name) {
    const std::vector<std::string> known = proposer_names();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        in.fail(ScriptErrorKind::BadValue, "unknown proposer '" + name + "' (known: " + list + ")");
    }
    return name;
}

// S B W [SEED] of `budget` and `ab`.
PolicyOptions budget_arguments(LineReader& in) {
    PolicyOptions o;
    o.budget.sink = int(in.number("the sink count", 0));
    o.budget.budget = int(in.number("the budget", 0));
    o.budget.window = int(in.number("the window", 1));
    if (!in.at_end()) o.seed = uint64_t(in.number("the seed", 0));
    return o;
}

// A word naming a value of an enum's table (core/names/enum_names.h): "unknown NOUN 'x'
// (known: ...)" otherwise.
template <typename Enum, size_t N>
Enum named_value(LineReader& in, const EnumName<Enum> (&table)[N], const char* what,
                 const char* noun) {
    const std::string name = in.word(what);
    const std::optional<Enum> value = value_in(table, name);
    if (!value)
        in.fail(ScriptErrorKind::BadValue, std::string("unknown ") + noun + " '" + name +
                                               "' (known: " + names_in(table, ", ") + ")");
    return *value;
}

// A name that becomes a file in the output folder: letters, digits, '-' and '_', so that a
// script cannot write outside the folder it was given.
bool is_file_name(std::string_view name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_';
    });
}

std::string file_name(LineReader& in, const char* what) {
    std::string name = in.word(what);
    if (!is_file_name(name))
        in.fail(ScriptErrorKind::BadValue,
                std::string(what) + " is letters, digits, '-' and '_' (it names a file)");
    return name;
}

// --- one reader per command form ---

void no_arguments(LineReader&, ScriptCommand&) {}

void parse_load(LineReader& in, ScriptCommand& c) {
    c.text = in.rest("a model (file, folder or synthetic:NAME)");
}

void parse_backend(LineReader& in, ScriptCommand& c) { c.text = in.word("a backend name"); }

void parse_prompt(LineReader& in, ScriptCommand& c) {
    c.session = command::Start{in.rest("the prompt text")};
}

void parse_step(LineReader& in, ScriptCommand& c) { c.count = in.number("the tick count", 1); }

ActionList json_actions(LineReader& in) {
    const std::string json = in.rest("a JSON action or action list");
    try {
        return parse_action_list(json);
    } catch (const ActionParseError& e) {
        in.fail(ScriptErrorKind::BadJson, e.what());
    }
}

void parse_inject(LineReader& in, ScriptCommand& c) {
    c.session = command::Inject{json_actions(in)};
}

void parse_apply(LineReader& in, ScriptCommand& c) {
    c.session = command::ApplyNow{json_actions(in)};
}

// `collapse` and `expand`: sugar for `apply` with one wLOD action on every layer (ARCHITECTURE
// §14).
void parse_collapse(LineReader& in, ScriptCommand& c) {
    const int row = int(in.number("the row", 0));
    const int level = int(in.number("the level", 1));
    c.session = command::ApplyNow{{Action{CollapseAction{row, level}, {}}}};
}

void parse_expand(LineReader& in, ScriptCommand& c) {
    c.session = command::ApplyNow{{Action{ExpandAction{int(in.number("the row", 0))}, {}}}};
}

void parse_clear_injected(LineReader&, ScriptCommand& c) { c.session = command::ClearInjected{}; }

void parse_rebuild(LineReader&, ScriptCommand& c) { c.session = command::Rebuild{}; }

void parse_drift(LineReader&, ScriptCommand& c) { c.session = command::Drift{}; }

void parse_replace_text(LineReader& in, ScriptCommand& c) {
    c.row = int(in.number("the first row", 0));
    c.row2 = int(in.number("the second row", 0));
    c.text = in.rest("the replacement text");
}

void parse_insert_text(LineReader& in, ScriptCommand& c) {
    c.row = int(in.number("the row", 0));
    c.text = in.rest("the text to insert");
}

void parse_policy(LineReader& in, ScriptCommand& c) {
    c.session = command::SetProposer{known_proposer(in, in.word("a proposer name"))};
}

void parse_budget(LineReader& in, ScriptCommand& c) { c.policy = budget_arguments(in); }

void parse_gate(LineReader& in, ScriptCommand& c) {
    c.text = in.rest("a gate sidecar file (NAME.gate.gguf)");
}

void parse_ab(LineReader& in, ScriptCommand& c) {
    c.text = in.word("a policy B, or off");
    c.flag = c.text != "off";
    if (c.flag) {
        c.text = known_proposer(in, c.text);
        c.policy = budget_arguments(in);
    }
}

void parse_rope(LineReader& in, ScriptCommand& c) {
    c.session =
        command::SetRopePolicy{named_value(in, kRopePolicyNames, "a RoPE policy", "RoPE policy")};
}

void parse_kv_types(LineReader& in, ScriptCommand& c) {
    const KvType k = named_value(in, kKvTypeNames, "the K storage type", "storage type");
    c.session =
        command::SetKvTypes{k, named_value(in, kKvTypeNames, "the V storage type", "storage type")};
}

void parse_layout(LineReader& in, ScriptCommand& c) {
    // Without a mode the session keeps its ring options.
    command::SetLayout set{named_value(in, kCacheLayoutNames, "a cache layout", "cache layout"),
                           std::nullopt, 0};
    if (set.layout == CacheLayout::Ring && !in.at_end()) {
        RingOptions ring;
        ring.mode = named_value(in, kRingModeNames, "a ring mode", "ring mode");
        if (!in.at_end()) ring.sinks = int(in.number("the sink rows", 0));
        if (!in.at_end()) ring.tokens_per_block = int(in.number("tokens per frame", 1));
        if (!in.at_end()) set.capacity = in.number("the ring size T", 1);
        set.ring = ring;
    }
    c.session = set;
}

void parse_guard(LineReader& in, ScriptCommand& c) {
    c.session = command::SetGuard{in.choice("guard", "on", "off")};
}

void parse_wlod(LineReader& in, ScriptCommand& c) {
    const int k = int(in.number("K (0: off)", 0));
    if (k == 1) in.fail(ScriptErrorKind::BadNumber, "K is 0 (off) or at least 2");
    c.session = command::SetWlod{k, in.at_end() ? 0 : in.number("W_max (0: no budget)", 0)};
}

void parse_wlod_max(LineReader& in, ScriptCommand& c) {
    c.count = in.number("W_max (0: no budget)", 0);
}

void parse_gist_net(LineReader& in, ScriptCommand& c) {
    const std::string file = in.rest("a gist net sidecar (*.gist.gguf) or mean-pool");
    c.session = command::SetGistNet{file == "mean-pool" ? std::string() : file};
}

void parse_switch_backend(LineReader& in, ScriptCommand& c) {
    c.session = command::SetBackend{in.word("a backend name")};
}

void parse_layer(LineReader& in, ScriptCommand& c) { c.layer = int(in.number("the layer", 0)); }

void parse_select(LineReader& in, ScriptCommand& c) { c.row = int(in.number("the row", 0)); }

void parse_view(LineReader& in, ScriptCommand& c) { c.text = in.word("a view name"); }

void parse_click(LineReader& in, ScriptCommand& c) {
    c.view = in.word("a view name");
    c.text = in.word("a control name");
}

void parse_set(LineReader& in, ScriptCommand& c) {
    parse_click(in, c);
    c.value = in.rest("a value");
}

void parse_controls(LineReader& in, ScriptCommand& c) { c.view = in.word("a view name"); }

void parse_help(LineReader& in, ScriptCommand& c) {
    if (!in.at_end()) c.text = in.rest("a command");
    if (!c.text.empty() && script_help_text(c.text).empty())
        in.fail(ScriptErrorKind::UnknownCommand, "help: no command '" + c.text + "'");
}

void parse_expect_invariant(LineReader& in, ScriptCommand& c) {
    c.text = in.word("an invariant name");
    c.flag = in.choice("the expectation", "pass", "fail");
}

void parse_expect_rows(LineReader& in, ScriptCommand& c) {
    c.layer = int(in.number("the layer", 0));
    c.count = in.number("the row count", 0);
}

// `expect tick`, `fork`, `show-tick`.
void parse_tick_number(LineReader& in, ScriptCommand& c) { c.count = in.number("the tick", 0); }

void parse_shot(LineReader& in, ScriptCommand& c) {
    c.text = file_name(in, "a shot name");
    if (!in.at_end()) c.view = in.word("a view name");
}

void parse_export(LineReader& in, ScriptCommand& c) {
    c.view = in.word("a view name");
    c.text = in.word("a file name (NAME.csv, NAME.json or NAME.png)");
    const size_t dot = c.text.rfind('.');
    const std::string suffix = dot == std::string::npos ? "" : c.text.substr(dot + 1);
    if (dot == std::string::npos || !is_file_name(c.text.substr(0, dot)) ||
        (suffix != "csv" && suffix != "json" && suffix != "png"))
        in.fail(ScriptErrorKind::BadValue,
                "an export file is NAME.csv, NAME.json or NAME.png with NAME of letters, "
                "digits, '-' and '_', not '" +
                    c.text + "'");
}

void parse_export_bundle(LineReader& in, ScriptCommand& c) {
    c.text = file_name(in, "a bundle name");
}

void parse_desync(LineReader& in, ScriptCommand& c) {
    const int layer = int(in.number("the layer", 0));
    c.session = command::Desync{layer, int(in.number("the row", 0))};
}

void parse_fault(LineReader& in, ScriptCommand& c) {
    c.session = command::InjectFault{int(in.number("the primitive (0: none)", 0))};
}

void parse_undo_redo(LineReader& in, ScriptCommand& c) {
    c.count = in.at_end() ? 1 : in.number("the number of commands", 1);
}

void parse_snapshot_name(LineReader& in, ScriptCommand& c) { c.text = in.word("a snapshot name"); }

// Keep in the order of README's script table; scripts/README examples use the same words.
const ScriptCommandForm kReference[] = {
    {"load", K::Load, "load SPEC",
     "load a model (file, HF folder, builtin:default, synthetic:NAME)", "load synthetic:tiny",
     parse_load},
    {"backend", K::Backend, "backend NAME",
     "backend for the following loads: cpu (the reference), cpu:avx2 (a pinned CPU kernel), "
     "cpu:fast, cuda, auto (the default: the fastest here)",
     "backend cpu:avx2", parse_backend},
    {"prompt", K::Session, "prompt TEXT", "forget the sequence and prefill BOS + TEXT (tick 0)",
     "prompt In the beginning", parse_prompt},
    {"step", K::Step, "step N", "run N ticks", "step 3", parse_step},
    {"inject", K::Session, "inject JSON", "queue an action or a list for the next tick",
     R"(inject {"action":"add","token_id":42})", parse_inject},
    {"apply", K::Session, "apply JSON",
     "apply an action list now (Step 4 alone, at the current tick)",
     R"(apply {"action":"delete","pos":2})", parse_apply},
    {"collapse", K::Session, "collapse ROW LEVEL",
     "apply one wLOD collapse of the block starting at ROW, on every layer (never BOS or a ring "
     "sink; needs a K: wLOD turned on in this sequence)",
     "collapse 8 1", parse_collapse},
    {"expand", K::Session, "expand ROW",
     "apply one wLOD expand of the gist row at ROW, on every layer", "expand 8", parse_expand},
    {"replace-text", K::ReplaceText, "replace-text ROW1 ROW2 TEXT",
     "queue replace_pair of two rows by the tokens of TEXT (at ROW1; rows between stay)",
     "replace-text 3 4 heaven", parse_replace_text},
    {"insert-text", K::InsertText, "insert-text ROW TEXT",
     "queue insert of the tokens of TEXT before ROW", "insert-text 2 and", parse_insert_text},
    {"clear-injected", K::Session, "clear-injected", "drop the actions queued for the next tick",
     "clear-injected", parse_clear_injected},
    {"rebuild", K::Session, "rebuild", "recompute the whole cache from the mirror", "rebuild",
     parse_rebuild},
    {"drift", K::Session, "drift", "measure drift against a fresh forward pass over the mirror",
     "drift", parse_drift},
    {"policy", K::Session, "policy NAME", "Step 3 proposer (the policy table)", "policy manual",
     parse_policy},
    {"budget", K::Budget, "budget S B W [SEED]",
     "a selective policy's per-layer sinks, high-value rows, window", "budget 4 16 8",
     parse_budget},
    {"gate", K::Gate, "gate FILE",
     "smartkv's gate sidecar (NAME.gate.gguf), read and checked at once",
     "gate resources/models/kjv-llama.gate.gguf", parse_gate},
    {"ab", K::Ab, "ab POLICY S B W [SEED]",
     "A/B mode: policy B with its budgets beside the session's policy, on the same tokens",
     "ab streaming-llm 2 6 4", parse_ab},
    {"ab", K::Ab, "ab off", "end the A/B mode", "ab off", parse_ab},
    {"rope", K::Session, "rope NAME", "RoPE position policy: " + names_in(kRopePolicyNames, ", "),
     "rope reindex", parse_rope},
    {"kv-types", K::Session, "kv-types K V",
     "storage types of cached K and V: " + names_in(kKvTypeNames, ", "), "kv-types bf16 fp8",
     parse_kv_types},
    {"layout", K::Session, "layout NAME [MODE S N [T]]",
     "cache layout: " + names_in(kCacheLayoutNames, ", ") + "; ring: mode " +
         names_in(kRingModeNames, "|") +
         ", S sinks, N tokens a tick decodes, T rows (default: the capacity)",
     "layout ring pointer 4 2 64", parse_layout},
    {"guard", K::Session, "guard on|off", "re-check invariants after every primitive", "guard on",
     parse_guard},
    {"wlod", K::Session, "wlod K [W_MAX]",
     "wLOD tree on with K tokens per block and W_MAX rows (0: none); wlod 0: off", "wlod 8 96",
     parse_wlod},
    {"wlod-max", K::WlodMax, "wlod-max W_MAX",
     "the wLOD budget alone (rows the focus policy keeps to; 0: none)", "wlod-max 64",
     parse_wlod_max},
    {"gist-net", K::Session, "gist-net FILE|mean-pool",
     "wLOD gists from a learned net's sidecar, or the mean of the children", "gist-net mean-pool",
     parse_gist_net},
    {"switch-backend", K::Session, "switch-backend NAME",
     "run the session on another backend from now on (the cached rows stay: drift shows the "
     "difference, rebuild recomputes them)",
     "switch-backend cpu:scalar", parse_switch_backend},
    {"layer", K::Layer, "layer N", "select a layer in every view", "layer 1", parse_layer},
    {"select", K::Select, "select ROW", "select a row of the selected layer in every view",
     "select 4", parse_select},
    {"view", K::View, "view NAME", "bring a view's dock to the front", "view tokens", parse_view},
    {"set", K::Set, "set VIEW CONTROL VALUE",
     "set a control a view names (`controls VIEW` lists them)", "set maps map drift", parse_set},
    {"click", K::Click, "click VIEW CONTROL", "click a button a view names", "click actions apply",
     parse_click},
    {"controls", K::Controls, "controls VIEW",
     "log the named controls of a view, their kind and value", "controls maps", parse_controls},
    {"help", K::Help, "help [COMMAND]", "log this list, or the lines of one command", "help step",
     parse_help},
    {"expect invariant", K::ExpectInvariant, "expect invariant NAME pass|fail",
     "the named invariant holds / fails now", "expect invariant ids_live pass",
     parse_expect_invariant},
    {"expect rows", K::ExpectRows, "expect rows LAYER N", "the state has N rows in LAYER",
     "expect rows 0 12", parse_expect_rows},
    {"expect tick", K::ExpectTick, "expect tick N", "the state is at tick N", "expect tick 3",
     parse_tick_number},
    {"shot", K::Shot, "shot NAME [VIEW]",
     "write NAME.png of the window or one view (compared with --compare)", "shot start tokens",
     parse_shot},
    {"export", K::Export, "export VIEW FILE",
     "write a view's data (NAME.csv, NAME.json) or picture (NAME.png) under --shots",
     "export maps maps.csv", parse_export},
    {"export-bundle", K::ExportBundle, "export-bundle NAME",
     "write DIR/NAME/: window.png, every view's csv, json and png, trace.ndjson",
     "export-bundle session", parse_export_bundle},
    {"wait-idle", K::WaitIdle, "wait-idle", "wait until the session is idle", "wait-idle",
     no_arguments},
    {"desync", K::Session, "desync LAYER ROW", "test hook: point one mirror row at another record",
     "desync 1 3", parse_desync},
    {"fault", K::Session, "fault K",
     "test hook: the K-th cache primitive of the next list applied fails between cache and "
     "mirror, so the list aborts and rolls back (0: disarm)",
     "fault 2", parse_fault},
    {"undo", K::Undo, "undo [N]", "take back the last N commands (default 1)", "undo 2",
     parse_undo_redo},
    {"redo", K::Redo, "redo [N]", "do the last N undone commands again", "redo", parse_undo_redo},
    {"snapshot", K::Snapshot, "snapshot NAME", "keep the session as it is under NAME",
     "snapshot before-edit", parse_snapshot_name},
    {"restore", K::Restore, "restore NAME", "go back to the snapshot NAME", "restore before-edit",
     parse_snapshot_name},
    {"fork", K::Fork, "fork TICK", "open a second window on a fork of the session at TICK",
     "fork 3", parse_tick_number},
    {"show-tick", K::ShowTick, "show-tick TICK",
     "every view but the timeline shows the Frame of a past TICK (replayed)", "show-tick 2",
     parse_tick_number},
    {"live", K::Live, "live", "the views show the live session again", "live", no_arguments},
};

}  // namespace

std::span<const ScriptCommandForm> script_reference() { return kReference; }

std::string script_help_text(std::string_view topic) {
    std::string text;
    for (const ScriptCommandForm& form : kReference) {
        const std::string_view usage = form.usage;
        const bool match =
            topic.empty() || (usage.starts_with(topic) &&
                              (usage.size() == topic.size() || usage[topic.size()] == ' '));
        if (!match) continue;
        text += std::string(usage) + "  —  " + form.summary + "\n";
    }
    return text;
}

}  // namespace kvw
