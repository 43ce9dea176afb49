#pragma once
// The commands that set up wLOD: its block size and budget, and the net that makes its gists
// (ARCHITECTURE §7 "Commands", §14).
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/json/json_fields.h"

namespace kvw {

class Session;

namespace command {

// Session::set_wlod: K tokens per block (0: off) and a budget of W_max rows (0: none).
struct SetWlod {
    static constexpr std::string_view kEvent = "set_wlod";
    int k = 0;
    int64_t max = 0;

    nlohmann::json to_json() const;
    static SetWlod from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const SetWlod&) const = default;
};

// Session::set_gist_net: a learned GistNet's sidecar (*.gist.gguf), or mean pooling (empty).
struct SetGistNet {
    static constexpr std::string_view kEvent = "set_gist_net";
    std::string path;

    nlohmann::json to_json() const;
    static SetGistNet from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const SetGistNet&) const = default;
};

}  // namespace command
}  // namespace kvw
