#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/json/json_fields.h"
#include "core/session/session.h"

namespace kvw {

// The JSON shapes of trace events, written by Session and read by replay.
// The header's "kvw_trace": the one format version this build writes and reads. Events gained
// keys since version 1 without a new version (a reader skips what it does not know, a replay
// compares only what was recorded), so a new version means one that an older reader would
// misread.
inline constexpr int64_t kTraceVersion = 1;
nlohmann::json trace_header(const SessionOptions& options);
// Throws TraceError (line 1 of `file`) naming the key when the header lacks one or has a value
// of the wrong type or range, or is of another version than kTraceVersion.
SessionOptions options_from_header(const nlohmann::json& header, const std::string& file = {});
// The header's name of a kind of state hash: "xxh64-chunks-bsum-streams", "xxh64-chunks-bsum",
// "xxh64-chunks", or "xxh64" for the stream hash (StateHashKind).
const char* state_hash_name(StateHashKind kind);
// Whether this build makes the header's state hashes (any kind of StateHashKind; a session
// replaying the trace hashes as it did). Traces written before the state hash became XXH64
// have no such key: their hashes are FNV-1a values that no state of this build can give, so a
// replay compares their other outcomes only.
bool header_has_current_state_hashes(const nlohmann::json& header);
// The backend a trace's "backend" (header) or set_backend "name" / "from" runs on: the name
// itself, except "auto", which only a build from before the session recorded the backend it
// resolved to wrote, when "auto" meant the first usable accelerator, else `cpu`: that, as it was
// replayed then (ARCHITECTURE §18.1).
std::string recorded_backend(const std::string& name);
// The header's "numerics": the numeric set its recording machine computed (numeric_set,
// ARCHITECTURE §18.1); nullopt for a header from before the key. Throws TraceError (line 1 of
// `file`) naming the key when it is not a string.
std::optional<std::string> recorded_numerics(const nlohmann::json& header, const std::string& file);
nlohmann::json tick_result_json(const TickResult& result);
nlohmann::json policy_options_json(const PolicyOptions& options);
// Throws JsonError naming the key.
PolicyOptions policy_options_from_json(const JsonFields& fields);
// The ring layout's options ({"mode", "sinks", "tokens_per_frame", "checksum"}: the last but one
// is RingOptions::tokens_per_block, the decode block's size, under its historic name); the reader
// throws JsonError naming the key, RingError is left to the layout.
nlohmann::json ring_options_json(const RingOptions& options);
RingOptions ring_options_from_json(const JsonFields& fields);
// A ring layer's pointer state as a tick event records it: offset, filled, pointer and the two
// slab ranges the last read assembled, so that a run can be grepped (docs/ARCHITECTURE.md §17).
nlohmann::json ring_frame_json(const RingFrame& ring);
nlohmann::json actions_json(const ActionList& actions);

}  // namespace kvw
