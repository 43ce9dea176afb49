// Undo / redo, named snapshots and forks (ARCHITECTURE §15): every one of them is the trace
// repeated up to a point on the same model, so that the state it gives is the one the original
// run had there, state hash for state hash.
#include <new>

#include <spdlog/spdlog.h>

#include "core/json/json_fields.h"
#include "core/session/command/sequence_commands.h"
#include "core/session/replay.h"
#include "core/session/session.h"
#include "core/session/session_error.h"
#include "core/state/state_error.h"

namespace kvw {

namespace {

void require_reproduced(const ReplayReport& report, const char* what) {
    if (report.ok()) return;
    const ReplayMismatch& m = report.mismatches.front();
    throw HistoryError(HistoryErrorKind::NotReproduced,
                       std::string(what) + ": repeating the trace gave another outcome at event " +
                           std::to_string(m.line) + " (" + m.event + "): " + m.field + " " +
                           m.actual + ", recorded " + m.expected);
}

}  // namespace

// The moved-from session's engine refers to its backend and its state to its engine: replacing
// the members one by one would free a backend under a live engine, so the old session goes as a
// whole (its destructor frees them in reverse order of making) before the new one moves in.
void Session::become(std::unique_ptr<Session> other) {
    std::vector<nlohmann::json> redo = std::move(redo_);
    std::map<std::string, Trace> snapshots = std::move(snapshots_);
    CheckpointStore checkpoints = std::move(checkpoints_);
    this->~Session();
    new (this) Session(std::move(*other));
    redo_ = std::move(redo);
    snapshots_ = std::move(snapshots);
    checkpoints_ = std::move(checkpoints);
    checkpoints_.keep_serving(trace_, trace_.events().size());
}

void Session::rethrow_rewound(const StateError& error) {
    if (error.kind() != StateErrorKind::NonFinite) throw;
    ReplayReport report;
    std::unique_ptr<Session> replayed =
        session_from_trace(trace_, trace_.events().size(), model_, report, &checkpoints_);
    require_reproduced(report, "rewinding a failed command");
    const size_t redo_base = redo_base_;  // the trace is as long as before: the stack stands
    become(std::move(replayed));
    redo_base_ = redo_base;
    spdlog::debug("rewound a failed command: back at tick {}", tick_);
    throw;
}

int Session::undo_depth() const { return int(trace_.events().size()) - 1; }

int Session::redo_depth() const {
    return trace_.events().size() == redo_base_ ? int(redo_.size()) : 0;
}

void Session::undo(int steps) {
    if (steps < 1 || steps > undo_depth())
        throw HistoryError(HistoryErrorKind::NothingToUndo,
                           "undo " + std::to_string(steps) + ": the trace holds " +
                               std::to_string(undo_depth()) + " command(s)");
    const size_t keep = trace_.events().size() - size_t(steps);
    ReplayReport report;
    std::unique_ptr<Session> replayed =
        session_from_trace(trace_, keep, model_, report, &checkpoints_);
    require_reproduced(report, "undo");
    if (redo_depth() == 0) redo_.clear();  // a command since the last undo dropped them
    for (size_t i = trace_.events().size(); i-- > keep;) redo_.push_back(trace_.events()[i]);
    become(std::move(replayed));
    redo_base_ = trace_.events().size();
    spdlog::debug("undo {}: back at tick {} ({} command(s) to redo)", steps, tick_, redo_.size());
}

void Session::redo(int steps) {
    if (steps < 1 || steps > redo_depth())
        throw HistoryError(HistoryErrorKind::NothingToRedo, "redo " + std::to_string(steps) + ": " +
                                                                std::to_string(redo_depth()) +
                                                                " command(s) to redo");
    for (int i = 0; i < steps; ++i) {
        const nlohmann::json event = std::move(redo_.back());
        redo_.pop_back();
        ReplayReport report;
        // The event's own line in the trace it will be part of again.
        replay_event(*this, event, trace_.events().size() + 1, "redo", report);
        redo_base_ = trace_.events().size();
        require_reproduced(report, "redo");
    }
    spdlog::debug("redo {}: at tick {} ({} command(s) to redo)", steps, tick_, redo_.size());
}

void Session::snapshot(const std::string& name) {
    snapshots_[name] = trace_;
    spdlog::debug("snapshot {}: tick {}, {} command(s)", name, tick_, undo_depth());
}

void Session::restore(const std::string& name) {
    const auto found = snapshots_.find(name);
    if (found == snapshots_.end()) {
        std::string known;
        for (const auto& [n, t] : snapshots_) known += (known.empty() ? "" : ", ") + n;
        throw HistoryError(HistoryErrorKind::UnknownSnapshot,
                           "restore: no snapshot '" + name +
                               "' (known: " + (known.empty() ? "none" : known) + ")");
    }
    ReplayReport report;
    std::unique_ptr<Session> replayed = session_from_trace(
        found->second, found->second.events().size(), model_, report, &checkpoints_);
    require_reproduced(report, "restore");
    become(std::move(replayed));
    redo_.clear();
    spdlog::debug("restored snapshot {}: tick {}", name, tick_);
}

std::vector<std::string> Session::snapshot_names() const {
    std::vector<std::string> names;
    for (const auto& [name, trace] : snapshots_) names.push_back(name);
    return names;
}

size_t events_through_tick(const Trace& trace, int64_t tick) {
    const auto& events = trace.events();
    // Read typed: a trace from a file may hold anything under these keys.
    const auto field = [&](size_t i, const auto& read) {
        try {
            return read(JsonFields(events[i]));
        } catch (const JsonError& e) {
            throw TraceError(e.what(), trace.line_of(i), trace.source());
        }
    };
    const auto name_of = [&](size_t i) {
        return field(i, [](const JsonFields& e) { return e.get<std::string>("event"); });
    };
    size_t start = events.size();
    for (size_t i = events.size(); i-- > 1;)
        if (name_of(i) == command::Start::kEvent) {
            start = i;
            break;
        }
    if (start == events.size())
        throw HistoryError(HistoryErrorKind::NoSuchTick, "the session has no prompt yet");
    // The tick is counted, not read from the events' "tick": a start begins at 0 and every
    // tick the session accepted is one more (Session::step). The recorded "tick" and "result"
    // are outcomes that the replay of the cut compares, so an edited one cannot move the cut
    // unseen.
    int64_t reached = 0;
    if (tick == 0) return start + 1;
    for (size_t i = start + 1; i < events.size(); ++i) {
        if (name_of(i) != command::Tick::kEvent) continue;
        const bool rejected = field(i, [](const JsonFields& e) {
            return e.has("result") && e.object("result").get_or<bool>("rejected", false);
        });
        if (!rejected && ++reached == tick) return i + 1;
    }
    throw HistoryError(HistoryErrorKind::NoSuchTick,
                       "the current sequence never reached tick " + std::to_string(tick));
}

std::unique_ptr<Session> Session::fork(int64_t tick) const {
    ReplayReport report;
    std::unique_ptr<Session> forked = session_from_trace(trace_, events_through_tick(trace_, tick),
                                                         model_, report, &checkpoints_);
    require_reproduced(report, "fork");
    spdlog::debug("forked at tick {}", tick);
    return forked;
}

}  // namespace kvw
