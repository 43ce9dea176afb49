#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/session/trace.h"

namespace kvw {

// An event whose outcome differs from the recorded one.
struct ReplayMismatch {
    size_t line = 0;  // 1-based line of the event in the trace
    std::string event;
    std::string field;  // "state_hash", "token", "rejected", ...
    std::string expected;
    std::string actual;
};

struct ReplayReport {
    size_t events = 0;   // events replayed (the header not counted)
    size_t checked = 0;  // recorded outcomes compared
    std::vector<ReplayMismatch> mismatches;
    bool ok() const { return mismatches.empty(); }
};

// Rebuilds a Session from the trace header (model, backend, sampling, policies) and repeats
// every command in order, comparing each recorded outcome (state hash, sampled token,
// rejection) with the new one. `model` overrides the header's model spec (a file moved).
// Throws TraceError for a malformed trace, and whatever loading the model throws.
ReplayReport replay_trace(const Trace& trace, const std::optional<std::string>& model = {});

}  // namespace kvw
