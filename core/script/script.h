#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/policy/policy_options.h"
#include "core/session/command/session_command.h"

namespace kvw {

// The commands of the .kvs screenshot-script language (ARCHITECTURE §6): every toolbar and view
// action of the workbench window, plus expectations and screenshots. README has the reference.
enum class ScriptCommandKind {
    Session,          // one SessionCommand, posted as it is (prompt, inject, apply, collapse,
                      // expand, clear-injected, rebuild, drift, policy, rope, kv-types, layout,
                      // guard, wlod, gist-net, desync)
    Load,             // load SPEC
    Backend,          // backend cpu|cuda|auto      (for the following loads)
    Step,             // step N                     (N ticks, one job the window can cancel)
    ReplaceText,      // replace-text ROW1 ROW2 TEXT (tokenized, queued)
    InsertText,       // insert-text ROW TEXT        (tokenized, queued)
    Budget,           // budget SINK BUDGET WINDOW [SEED]  (a selective policy's S, B, W)
    Gate,             // gate FILE                  (smartkv's gate sidecar)
    Ab,               // ab POLICY S B W [SEED] | ab off  (A/B mode: policy B beside the session's)
    WlodMax,          // wlod-max W_MAX             (the budget alone, with the session's K)
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
    Undo,             // undo [N]                   (ARCHITECTURE §15)
    Redo,             // redo [N]
    Snapshot,         // snapshot NAME              (NAME in text)
    Restore,          // restore NAME
    Fork,             // fork TICK                  (a second window on the fork)
    ShowTick,         // show-tick TICK             (the views show a past tick, §16)
    Live,             // live                       (the views show the live session again;
                      // the last kind: tests walk the kinds up to it)
};

// One parsed line. Only the fields its kind names are set.
struct ScriptCommand {
    ScriptCommandKind kind = ScriptCommandKind::WaitIdle;
    int line = 0;        // 1-based line in the script
    std::string source;  // the line as written, trimmed, for messages
    // Kind Session: the command the line stands for (core/script/script_session_line.h writes
    // it back as a line).
    std::optional<SessionCommand> session;
    std::string text;      // SPEC, TEXT, NAME (backend, view, invariant, shot, CONTROL, policy B),
                           // help's COMMAND, gate's FILE
    std::string view;      // shot NAME VIEW (empty: the whole window), set/click/controls VIEW
    std::string value;     // set .. VALUE
    int layer = -1;        // layer, expect rows
    int row = -1;          // select, replace-text ROW1, insert-text
    int row2 = -1;         // replace-text ROW2
    int64_t count = 0;     // step N, expect rows / tick .. N, undo / redo N, fork / show-tick TICK,
                           // wlod-max W_MAX
    bool flag = false;     // expect invariant .. pass; ab on
    PolicyOptions policy;  // budget, ab (the gate is the `gate` command's text)
};

struct Script {
    std::string file;  // where it came from ("<text>" when parsed from a string)
    std::vector<ScriptCommand> commands;
};

}  // namespace kvw
