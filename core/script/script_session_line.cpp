#include "core/script/script_session_line.h"

#include "core/cache/kv_storage.h"
#include "core/script/script_line_reader.h"
#include "core/state/action_json.h"

namespace kvw {
namespace {

using Line = std::optional<std::string>;

// TEXT as the rest of a line reads it back: one line, no surrounding blanks, not empty.
bool is_line_text(const std::string& text) {
    return !text.empty() && text.find_first_of("\r\n") == std::string::npos &&
           trim_blanks(text).size() == text.size();
}

Line with_text(const char* word, const std::string& text) {
    if (!is_line_text(text)) return std::nullopt;
    return std::string(word) + " " + text;
}

// One overload per alternative of SessionCommand: one missing does not compile.
struct LineOf {
    Line operator()(const command::Start& c) const {
        const auto* text = std::get_if<std::string>(&c.prompt);
        return text ? with_text("prompt", *text) : std::nullopt;
    }
    Line operator()(const command::Tick&) const { return std::nullopt; }
    // to_json() writes one line: nlohmann's dump() escapes newlines inside strings.
    Line operator()(const command::Inject& c) const { return "inject " + to_json(c.actions); }
    Line operator()(const command::ApplyNow& c) const { return "apply " + to_json(c.actions); }
    Line operator()(const command::ClearInjected&) const { return "clear-injected"; }
    Line operator()(const command::Rebuild&) const { return "rebuild"; }
    Line operator()(const command::Drift&) const { return "drift"; }
    Line operator()(const command::SetProposer& c) const { return with_text("policy", c.name); }
    Line operator()(const command::SetPolicyOptions&) const { return std::nullopt; }
    Line operator()(const command::SetRopePolicy& c) const {
        return std::string("rope ") + rope_policy_name(c.policy);
    }
    Line operator()(const command::SetLayout& c) const {
        std::string line = std::string("layout ") + cache_layout_name(c.layout);
        if (!c.ring) return c.capacity == 0 ? Line(line) : std::nullopt;
        if (c.layout != CacheLayout::Ring || c.ring->checksum) return std::nullopt;
        line += std::string(" ") + ring_mode_name(c.ring->mode) + " " +
                std::to_string(c.ring->sinks) + " " + std::to_string(c.ring->tokens_per_block);
        if (c.capacity != 0) line += " " + std::to_string(c.capacity);
        return line;
    }
    Line operator()(const command::SetKvTypes& c) const {
        return std::string("kv-types ") + kv_type_name(c.k) + " " + kv_type_name(c.v);
    }
    Line operator()(const command::SetGuard& c) const {
        return std::string("guard ") + (c.on ? "on" : "off");
    }
    Line operator()(const command::SetWlod& c) const {
        std::string line = "wlod " + std::to_string(c.k);
        if (c.max != 0) line += " " + std::to_string(c.max);
        return line;
    }
    Line operator()(const command::SetGistNet& c) const {
        if (c.path.empty()) return "gist-net mean-pool";
        return c.path == "mean-pool" ? std::nullopt : with_text("gist-net", c.path);
    }
    // One word: a name with a blank in it would not read back.
    Line operator()(const command::SetBackend& c) const {
        if (!is_line_text(c.name) || c.name.find_first_of(" \t") != std::string::npos)
            return std::nullopt;
        return "switch-backend " + c.name;
    }
    Line operator()(const command::Desync& c) const {
        return "desync " + std::to_string(c.layer) + " " + std::to_string(c.row);
    }
    Line operator()(const command::InjectFault& c) const {
        return "fault " + std::to_string(c.primitive);
    }
};

}  // namespace

std::optional<std::string> script_line(const SessionCommand& command) {
    return std::visit(LineOf{}, command);
}

}  // namespace kvw
