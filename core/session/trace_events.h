#pragma once
#include <nlohmann/json.hpp>

#include "core/session/session.h"

namespace kvw {

// The JSON shapes of trace events, written by Session and read by replay.
nlohmann::json trace_header(const SessionOptions& options);
// Throws TraceError naming the field when the header lacks one or has a bad value.
SessionOptions options_from_header(const nlohmann::json& header);
nlohmann::json tick_result_json(const TickResult& result);
nlohmann::json actions_json(const ActionList& actions);
// Throws TraceError (line) when the event's "actions" field is not an action list.
ActionList actions_from_event(const nlohmann::json& event, size_t line);

}  // namespace kvw
