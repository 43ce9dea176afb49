#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/session/trace.h"

namespace kvw {

class CheckpointStore;
class Session;
struct Model;

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
    // False for a trace whose state hashes another hash function made (written before the
    // state hash became XXH64, header_has_current_state_hashes): they were not compared.
    bool state_hashes_compared = true;
    // Events that carry no "state_hash" where the command, repeated, records one: their states
    // were not checked (a warning says so).
    size_t unhashed_events = 0;
    // The backend the trace recorded ("backend" of the header, then "name" of each set_backend)
    // and the one the replay runs on in its place, as of the last event repeated: equal unless
    // the replay was told another (ReplayTarget::backend) or the trace says "auto"
    // (recorded_backend()).
    std::string recorded_backend;
    std::string backend;
    // True when the replay started on a backend of another numeric set than the recorded one
    // (numeric_set(), ARCHITECTURE §18.1; the header's "numerics", as the recording machine
    // computed them, against this machine's): its state hashes were not compared
    // (state_hashes_compared is false), its tokens and other outcomes were. Then the two sets,
    // which name the difference also where the backends' names are one
    // ("cpu:fast+tdpbf16ps+fp16-scores" recorded on an AMX machine, "cpu:fast" here).
    bool other_numerics = false;
    std::string recorded_numerics, numerics;
    std::vector<ReplayMismatch> mismatches;
    bool ok() const { return mismatches.empty(); }
};

// Why the replay did not compare the recorded state hashes ("not its state hashes: recorded on
// cpu:fast, replayed on cpu, ..."); empty when it compared them. For kvw replay and the window.
std::string hashes_not_compared(const ReplayReport& report);

// What a replay runs on instead of what the trace header names.
struct ReplayTarget {
    std::optional<std::string> model;  // another model spec (a file moved, a quantised copy)
    // Another backend (a name of backend_names() or "auto"). Of another numeric set than the
    // recorded one, its state hashes cannot match: the replay warns and compares the rest.
    std::optional<std::string> backend;
};

// Rebuilds a Session from the trace header (model, backend, sampling, policies) and repeats
// every command in order, comparing every key each event recorded (tick, state hash, sampled
// tokens, the action list as applied, the tick's result, invariants, rejection; not the ring's
// pointers, a grep aid the state hash covers) with the event the repeated command writes.
// Throws TraceError for a malformed trace, std::invalid_argument for a backend this machine
// cannot run, and whatever loading the model throws.
ReplayReport replay_trace(const Trace& trace, const ReplayTarget& target = {});

// replay_trace()'s work, keeping the Session it rebuilt: the session as the trace left it, to
// carry on from (the window's File → Open trace, kv-workbench --trace). `after_event`, when
// given, sees the session after every event repeated (the window's timeline of the trace's
// ticks).
std::unique_ptr<Session> session_replayed(
    const Trace& trace, const ReplayTarget& target, ReplayReport& report,
    const std::function<void(const Session&)>& after_event = {});

// One event (never the header) repeated on `session`; `line` and `file` name it in errors and
// mismatches; its recorded state hash is compared when report.state_hashes_compared. Throws
// TraceError for a malformed event.
void replay_event(Session& session, const nlohmann::json& event, size_t line,
                  const std::string& file, ReplayReport& report);

// Repeats events()[first, last) of `trace` on `session` (the header, index 0, is never one of
// them), adding what it compared to `report`. Throws TraceError for a malformed event.
void replay_events(Session& session, const Trace& trace, size_t first, size_t last,
                   ReplayReport& report);

// How many events of `trace` (header included) lead to `tick` of its last sequence: through
// the last start for 0, else through the first accepted tick event after it that reached it
// (edits made later at the same tick are not part of it). What fork, the window's past ticks
// and `kvw fork` repeat. HistoryError(NoSuchTick) when the sequence never got there.
size_t events_through_tick(const Trace& trace, int64_t tick);

// A new Session on `model` (shared, not loaded again) as it was after the trace's first
// `events` events (header included): built from the header, or restored from the nearest of
// `checkpoints` that serves the trace there (ARCHITECTURE §16), then the rest of the events
// repeated, outcomes compared as replay_trace() does, into `report`. The new session shares
// the checkpoints that serve it.
std::unique_ptr<Session> session_from_trace(const Trace& trace, size_t events,
                                            std::shared_ptr<const Model> model,
                                            ReplayReport& report,
                                            const CheckpointStore* checkpoints = nullptr);

}  // namespace kvw
