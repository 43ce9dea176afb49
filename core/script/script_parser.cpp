#include "core/script/script_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>

#include "core/cache/kv_storage.h"
#include "core/io/regular_file.h"
#include "core/policy/proposer.h"
#include "core/script/script_error.h"
#include "core/script/script_reference.h"
#include "core/state/action_json.h"

namespace kvw {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
    return s;
}

// Reads the words of one line left to right; every complaint becomes a ScriptError that names
// the file, the line and the command as written.
class LineReader {
public:
    LineReader(std::string_view line, const std::string& file, int line_no)
        : rest_(trim(line)), source_(rest_), file_(file), line_no_(line_no) {}

    [[noreturn]] void fail(ScriptErrorKind kind, const std::string& message) const {
        throw ScriptError(kind, file_, line_no_, std::string(source_), message);
    }

    bool at_end() const { return rest_.empty(); }

    std::string word(const char* what) {
        if (rest_.empty()) fail(ScriptErrorKind::MissingArgument, std::string("expected ") + what);
        const size_t end =
            std::min(rest_.size(),
                     size_t(std::find_if(rest_.begin(), rest_.end(), is_blank) - rest_.begin()));
        std::string w(rest_.substr(0, end));
        rest_ = trim(rest_.substr(end));
        return w;
    }

    // The rest of the line, trimmed: TEXT, SPEC, JSON.
    std::string rest(const char* what) {
        if (rest_.empty()) fail(ScriptErrorKind::MissingArgument, std::string("expected ") + what);
        std::string r(rest_);
        rest_ = {};
        return r;
    }

    int64_t number(const char* what, int64_t min) {
        const std::string w = word(what);
        int64_t value = 0;
        const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), value);
        if (ec != std::errc() || end != w.data() + w.size() || value < min ||
            value > int64_t(INT32_MAX))
            fail(ScriptErrorKind::BadNumber, std::string(what) + " must be an integer in [" +
                                                 std::to_string(min) + ", 2147483647], not '" + w +
                                                 "'");
        return value;
    }

    bool choice(const char* what, const char* yes, const char* no) {
        const std::string w = word(what);
        if (w == yes) return true;
        if (w == no) return false;
        fail(ScriptErrorKind::BadValue,
             std::string(what) + " must be " + yes + " or " + no + ", not '" + w + "'");
    }

    void end() {
        if (!rest_.empty())
            fail(ScriptErrorKind::ExtraArgument, "unexpected '" + std::string(rest_) + "'");
    }

    const std::string_view& source() const { return source_; }

private:
    std::string_view rest_;
    std::string_view source_;
    const std::string& file_;
    int line_no_;
};

ActionList parse_actions(LineReader& in) {
    const std::string json = in.rest("a JSON action or action list");
    try {
        return parse_action_list(json);
    } catch (const ActionParseError& e) {
        in.fail(ScriptErrorKind::BadJson, e.what());
    }
}

std::string known_proposer(LineReader& in, std::string name) {
    const std::vector<std::string> known = proposer_names();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        in.fail(ScriptErrorKind::BadValue, "unknown proposer '" + name + "' (known: " + list + ")");
    }
    return name;
}

std::string proposer_name(LineReader& in) { return known_proposer(in, in.word("a proposer name")); }

// S B W [SEED] of `budget` and `ab`.
PolicyOptions budget_arguments(LineReader& in) {
    PolicyOptions o;
    o.budget.sink = int(in.number("the sink count", 0));
    o.budget.budget = int(in.number("the budget", 0));
    o.budget.window = int(in.number("the window", 1));
    if (!in.at_end()) o.seed = uint64_t(in.number("the seed", 0));
    return o;
}

RopePolicy rope_policy(LineReader& in) {
    const std::string name = in.word("a RoPE policy");
    const std::optional<RopePolicy> policy = parse_rope_policy(name);
    if (!policy)
        in.fail(ScriptErrorKind::BadValue,
                "unknown RoPE policy '" + name + "' (known: final_index, reindex, original)");
    return *policy;
}

KvType kv_type(LineReader& in, const char* what) {
    const std::string name = in.word(what);
    const std::optional<KvType> t = parse_kv_type(name);
    if (!t)
        in.fail(ScriptErrorKind::BadValue, "unknown storage type '" + name +
                                               "' (known: " + std::string(kv_type_choices()) + ")");
    return *t;
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

// The arguments of the command `word`, into `c` (whose kind it sets).
void parse_arguments(const std::string& word, LineReader& in, ScriptCommand& c) {
    using K = ScriptCommandKind;
    if (word == "load") {
        c.kind = K::Load;
        c.text = in.rest("a model (file, folder or synthetic:NAME)");
    } else if (word == "backend") {
        c.kind = K::Backend;
        c.text = in.word("a backend name");
    } else if (word == "prompt") {
        c.kind = K::Prompt;
        c.text = in.rest("the prompt text");
    } else if (word == "step") {
        c.kind = K::Step;
        c.count = in.number("the tick count", 1);
    } else if (word == "inject" || word == "apply") {
        c.kind = word == "inject" ? K::Inject : K::Apply;
        c.actions = parse_actions(in);
    } else if (word == "collapse" || word == "expand") {
        // Sugar for `apply` with one wLOD action on every layer (ARCHITECTURE §14).
        c.kind = K::Apply;
        const int row = int(in.number("the row", 0));
        if (word == "collapse")
            c.actions = {Action{CollapseAction{row, int(in.number("the level", 1))}, {}}};
        else
            c.actions = {Action{ExpandAction{row}, {}}};
    } else if (word == "replace-text") {
        c.kind = K::ReplaceText;
        c.row = int(in.number("the first row", 0));
        c.row2 = int(in.number("the second row", 0));
        c.text = in.rest("the replacement text");
    } else if (word == "insert-text") {
        c.kind = K::InsertText;
        c.row = int(in.number("the row", 0));
        c.text = in.rest("the text to insert");
    } else if (word == "rebuild" || word == "drift" || word == "wait-idle") {
        c.kind = word == "rebuild" ? K::Rebuild : word == "drift" ? K::Drift : K::WaitIdle;
    } else if (word == "policy") {
        c.kind = K::Policy;
        c.text = proposer_name(in);
    } else if (word == "budget") {
        c.kind = K::Budget;
        c.policy = budget_arguments(in);
    } else if (word == "gate") {
        c.kind = K::Gate;
        c.text = in.rest("a gate sidecar file (NAME.gate.gguf)");
    } else if (word == "ab") {
        c.kind = K::Ab;
        c.text = in.word("a policy B, or off");
        c.flag = c.text != "off";
        if (c.flag) {
            c.text = known_proposer(in, c.text);
            c.policy = budget_arguments(in);
        }
    } else if (word == "rope") {
        c.kind = K::Rope;
        c.rope = rope_policy(in);
    } else if (word == "kv-types") {
        c.kind = K::KvTypes;
        c.k_type = kv_type(in, "the K storage type");
        c.v_type = kv_type(in, "the V storage type");
    } else if (word == "layout") {
        c.kind = K::Layout;
        const std::string name = in.word("a cache layout");
        const std::optional<CacheLayout> layout = parse_cache_layout(name);
        if (!layout)
            in.fail(ScriptErrorKind::BadValue, "unknown cache layout '" + name +
                                                   "' (known: contiguous, batch_splice, "
                                                   "indirection, ring)");
        c.layout = *layout;
        if (c.layout == CacheLayout::Ring && !in.at_end()) {
            const std::string mode = in.word("a ring mode");
            const std::optional<RingMode> m = parse_ring_mode(mode);
            if (!m)
                in.fail(ScriptErrorKind::BadValue, "unknown ring mode '" + mode + "' (known: " +
                                                       std::string(ring_mode_choices()) + ")");
            c.ring.mode = *m;
            if (!in.at_end()) c.ring.sinks = int(in.number("the sink rows", 0));
            if (!in.at_end()) c.ring.tokens_per_frame = int(in.number("tokens per frame", 1));
            if (!in.at_end()) c.count = in.number("the ring size T", 1);
        }
    } else if (word == "guard") {
        c.kind = K::Guard;
        c.flag = in.choice("guard", "on", "off");
    } else if (word == "wlod") {
        c.kind = K::Wlod;
        c.wlod_k = int(in.number("K (0: off)", 0));
        if (c.wlod_k == 1) in.fail(ScriptErrorKind::BadNumber, "K is 0 (off) or at least 2");
        if (!in.at_end()) c.count = in.number("W_max (0: no budget)", 0);
    } else if (word == "wlod-max") {
        c.kind = K::WlodMax;
        c.count = in.number("W_max (0: no budget)", 0);
    } else if (word == "gist-net") {
        c.kind = K::GistNet;
        c.text = in.rest("a gist net sidecar (*.gist.gguf) or mean-pool");
        if (c.text == "mean-pool") c.text.clear();
    } else if (word == "layer") {
        c.kind = K::Layer;
        c.layer = int(in.number("the layer", 0));
    } else if (word == "select") {
        c.kind = K::Select;
        c.row = int(in.number("the row", 0));
    } else if (word == "view") {
        c.kind = K::View;
        c.text = in.word("a view name");
    } else if (word == "set" || word == "click") {
        c.kind = word == "set" ? K::Set : K::Click;
        c.view = in.word("a view name");
        c.text = in.word("a control name");
        if (c.kind == K::Set) c.value = in.rest("a value");
    } else if (word == "controls") {
        c.kind = K::Controls;
        c.view = in.word("a view name");
    } else if (word == "help") {
        c.kind = K::Help;
        if (!in.at_end()) c.text = in.rest("a command");
        if (!c.text.empty() && script_help_text(c.text).empty())
            in.fail(ScriptErrorKind::UnknownCommand, "help: no command '" + c.text + "'");
    } else if (word == "shot" || word == "export-bundle") {
        c.kind = word == "shot" ? K::Shot : K::ExportBundle;
        c.text = file_name(in, word == "shot" ? "a shot name" : "a bundle name");
        if (c.kind == K::Shot && !in.at_end()) c.view = in.word("a view name");
    } else if (word == "export") {
        c.kind = K::Export;
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
    } else if (word == "desync") {
        c.kind = K::Desync;
        c.layer = int(in.number("the layer", 0));
        c.row = int(in.number("the row", 0));
    } else if (word == "undo" || word == "redo") {
        c.kind = word == "undo" ? K::Undo : K::Redo;
        c.count = in.at_end() ? 1 : in.number("the number of commands", 1);
    } else if (word == "snapshot" || word == "restore") {
        c.kind = word == "snapshot" ? K::Snapshot : K::Restore;
        c.text = in.word("a snapshot name");
    } else if (word == "fork") {
        c.kind = K::Fork;
        c.count = in.number("the tick", 0);
    } else if (word == "show-tick") {
        c.kind = K::ShowTick;
        c.count = in.number("the tick", 0);
    } else if (word == "live") {
        c.kind = K::Live;
    } else if (word == "expect") {
        const std::string what = in.word("invariant, rows or tick");
        if (what == "invariant") {
            c.kind = K::ExpectInvariant;
            c.text = in.word("an invariant name");
            c.flag = in.choice("the expectation", "pass", "fail");
        } else if (what == "rows") {
            c.kind = K::ExpectRows;
            c.layer = int(in.number("the layer", 0));
            c.count = in.number("the row count", 0);
        } else if (what == "tick") {
            c.kind = K::ExpectTick;
            c.count = in.number("the tick", 0);
        } else {
            in.fail(ScriptErrorKind::UnknownCommand,
                    "expect takes invariant, rows or tick, not '" + what + "'");
        }
    } else {
        in.fail(ScriptErrorKind::UnknownCommand, "unknown command '" + word + "'");
    }
    in.end();
}

}  // namespace

const char* script_command_name(ScriptCommandKind kind) {
    using K = ScriptCommandKind;
    switch (kind) {
        case K::Load: return "load";
        case K::Backend: return "backend";
        case K::Prompt: return "prompt";
        case K::Step: return "step";
        case K::Inject: return "inject";
        case K::Apply: return "apply";
        case K::ReplaceText: return "replace-text";
        case K::InsertText: return "insert-text";
        case K::Rebuild: return "rebuild";
        case K::Drift: return "drift";
        case K::Policy: return "policy";
        case K::Budget: return "budget";
        case K::Gate: return "gate";
        case K::Ab: return "ab";
        case K::Rope: return "rope";
        case K::KvTypes: return "kv-types";
        case K::Layout: return "layout";
        case K::Guard: return "guard";
        case K::Wlod: return "wlod";
        case K::WlodMax: return "wlod-max";
        case K::GistNet: return "gist-net";
        case K::Layer: return "layer";
        case K::Select: return "select";
        case K::View: return "view";
        case K::Set: return "set";
        case K::Click: return "click";
        case K::Controls: return "controls";
        case K::Help: return "help";
        case K::ExpectInvariant: return "expect invariant";
        case K::ExpectRows: return "expect rows";
        case K::ExpectTick: return "expect tick";
        case K::Shot: return "shot";
        case K::Export: return "export";
        case K::ExportBundle: return "export-bundle";
        case K::WaitIdle: return "wait-idle";
        case K::Desync: return "desync";
        case K::Undo: return "undo";
        case K::Redo: return "redo";
        case K::Snapshot: return "snapshot";
        case K::Restore: return "restore";
        case K::Fork: return "fork";
        case K::ShowTick: return "show-tick";
        case K::Live: return "live";
    }
    return "?";
}

Script parse_script(std::string_view text, const std::string& file) {
    Script script;
    script.file = file;
    int line_no = 0;
    while (!text.empty()) {
        const size_t eol = std::min(text.find('\n'), text.size());
        const std::string_view line = text.substr(0, eol);
        text.remove_prefix(std::min(eol + 1, text.size()));
        ++line_no;
        const std::string_view body = trim(line);
        if (body.empty() || body.front() == '#') continue;

        LineReader in(body, file, line_no);
        ScriptCommand command;
        command.line = line_no;
        command.source = std::string(in.source());
        parse_arguments(in.word("a command"), in, command);
        script.commands.push_back(std::move(command));
    }
    return script;
}

Script read_script_file(const std::filesystem::path& path) {
    std::string text;
    try {
        text = read_regular_file(path, kMaxScriptBytes);
    } catch (const FileReadError& e) {
        throw ScriptError(ScriptErrorKind::CannotRead, path.string(), 0, "(file)",
                          "cannot read the script: " + e.detail());
    }
    return parse_script(text, path.string());
}

}  // namespace kvw
