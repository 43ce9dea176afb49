#pragma once
// The command that moves a session to another backend (ARCHITECTURE §7 "Commands", §18).
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/json/json_fields.h"

namespace kvw {

class Session;

namespace command {

// Session::set_backend: the engine made again on the backend `name` (a name of backend_names()
// or "auto", which the event records as the backend it resolved to); the cached rows stay as
// the old backend computed them, so that the next drift check shows the difference between
// the two and a rebuild recomputes them on the new one.
// The Session adds the outcomes "from" (the backend before) and "rows": "kept".
struct SetBackend {
    static constexpr std::string_view kEvent = "set_backend";
    std::string name = "cpu";

    nlohmann::json to_json() const;
    static SetBackend from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const SetBackend&) const = default;
};

}  // namespace command
}  // namespace kvw
