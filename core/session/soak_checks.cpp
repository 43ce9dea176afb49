#include "core/session/soak_checks.h"

#include "core/session/replay.h"

namespace kvw {

std::string first_state_fault(const StateManager& state) {
    if (std::string difference = state.incremental_difference(); !difference.empty())
        return difference;
    const std::vector<InvariantResult> results = state.check_invariants();
    for (const InvariantResult& r : results)
        if (!r.passed)
            return "invariant " + r.name + " fails at layer " + std::to_string(r.layer) + " row " +
                   std::to_string(r.row) + ": " + r.detail;
    return {};
}

std::string own_trace_replay_difference(const Session& session) {
    const ReplayReport report = replay_trace(session.trace());
    if (report.ok()) return {};
    const ReplayMismatch& m = report.mismatches.front();
    return "its own trace replays differently at line " + std::to_string(m.line) + " (" + m.event +
           "): " + m.field + " " + m.actual + ", recorded " + m.expected;
}

void LedgerWatch::remember(const Ledger& ledger) {
    const auto entries = ledger.entries();
    for (size_t i = seen_.size(); i < entries.size(); ++i)
        seen_.push_back({entries[i].kind, entries[i].token_id, entries[i].born_tick});
}

std::string LedgerWatch::check(const Ledger& ledger) const {
    const auto entries = ledger.entries();
    if (entries.size() < seen_.size())
        return "the ledger shrank from " + std::to_string(seen_.size()) + " to " +
               std::to_string(entries.size()) + " records";
    for (size_t i = 0; i < entries.size(); ++i) {
        const LedgerEntry& e = entries[i];
        if (e.id != int64_t(i))
            return "ledger record " + std::to_string(i) + " has id " + std::to_string(e.id);
        if (i >= seen_.size()) continue;
        const Seen& k = seen_[i];
        if (e.kind != k.kind || e.token_id != k.token_id || e.born_tick != k.born_tick)
            return "ledger record " + std::to_string(i) + " changed its kind, token or birth";
    }
    return {};
}

}  // namespace kvw
