#pragma once
// The commands that check or repair the cache against the mirror (ARCHITECTURE §7 "Commands").
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/json/json_fields.h"

namespace kvw {

class Session;

namespace command {

// Session::rebuild: the cache recomputed from the mirror.
struct Rebuild {
    static constexpr std::string_view kEvent = "rebuild";

    nlohmann::json to_json() const;
    static Rebuild from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const Rebuild&) const = default;
};

// Session::measure_drift: every layer against a fresh recompute.
struct Drift {
    static constexpr std::string_view kEvent = "drift";

    nlohmann::json to_json() const;
    static Drift from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const Drift&) const = default;
};

// Session::debug_desync_row: the test hook that breaks the mirror of one row, so that the
// invariants panel and a replay show a fault.
struct Desync {
    static constexpr std::string_view kEvent = "desync";
    int layer = 0;
    int row = 0;

    nlohmann::json to_json() const;
    static Desync from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const Desync&) const = default;
};

// Session::inject_fault: the hook that shows the rollback path. The `primitive`-th cache
// primitive (1-based) of the next action list applied (a tick's or apply_now's) fails after the
// cache changed and before the mirror did: the list aborts, the mirror goes back, the cache is
// rebuilt from it and the result names the primitive. 0 disarms; a list with fewer primitives
// leaves nothing armed.
struct InjectFault {
    static constexpr std::string_view kEvent = "inject_fault";
    int primitive = 0;

    nlohmann::json to_json() const;
    static InjectFault from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const InjectFault&) const = default;
};

}  // namespace command
}  // namespace kvw
