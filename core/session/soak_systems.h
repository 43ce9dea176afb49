#pragma once
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/session/session.h"
#include "core/session/soak.h"
#include "core/session/soak_checks.h"

namespace kvw {

// The soak of everything beside plain edits (ARCHITECTURE §7, the soak): a session drawn
// at random — a selective policy with its budgets (smartkv with the gate given), a ring layout
// (mode, sinks, tokens per decode block, checksum) or another, K and V storage types, wLOD with or
// without a W_max and the gist net given, greedy or temperature sampling — then random
// commands: ticks, edit lists, wLOD collapse / expand, K/V type, layout, policy, budget, wLOD
// and gist-net switches, rebuilds, drift, undo / redo, snapshot / restore, forks at past
// ticks, new prompts. Each command either runs or is refused with nothing changed (state
// hash, trace, ledger); after each, every invariant that applies holds and the ledger keeps
// every record; undo, restore and a fork reach the state hash the trace recorded there; and
// finish() replays the session's own trace, comparing every recorded outcome.
class SystemsSoak {
public:
    SystemsSoak(const SoakOptions& options, std::shared_ptr<const Model> model);

    // One random command and its checks; false (and failure()) at the first broken expectation.
    bool step();
    // Replays the session's trace from its header; false when an outcome differs.
    bool finish();

    const SoakCounts& counts() const { return counts_; }
    const std::string& failure() const { return failure_; }
    // What was drawn: "h2o S 2 B 12 W 8 · ring pointer (sinks 2, 1 a frame) · K int8 V f16 · …".
    const std::string& configuration() const { return configuration_; }
    Session& session() { return *session_; }

private:
    // The state a refused command must leave exactly as it was.
    struct Mark {
        uint64_t hash;
        size_t events;
        int64_t records;
    };
    Mark mark() const;
    bool fail(std::string what);
    // Runs `command`; a std::exception from it is a refusal, which must leave mark() as it was.
    template <typename Command>
    bool attempt(const char* what, Command&& command, int64_t& count);
    bool tick();
    bool edit();
    // Session::apply_now(list), counted in `count`; a refusal (thrown, rejected or aborted)
    // must leave the state as it was.
    bool apply_now(const char* what, const ActionList& list, int64_t& count);
    bool collapse_or_expand();
    bool change_kv_types();
    bool change_layout();
    bool change_policy();
    bool change_wlod();
    bool change_gist_net();
    bool change_backend();
    bool undo_or_redo();
    bool snapshot_or_restore();
    bool fork_at_past_tick();
    bool rebuild_or_drift();
    // The state hash the trace recorded after its first `events` events (header included);
    // 0 where that event records none.
    uint64_t recorded_hash(size_t events) const;
    std::string check() const;
    // Undo, restore and a new prompt make the ledger anew: it is watched from there on.
    void watch_new_ledger();

    SoakOptions options_;
    std::shared_ptr<const Model> model_;
    std::mt19937_64 rng_;
    std::unique_ptr<Session> session_;
    std::string configuration_;
    std::vector<std::string> snapshots_;
    LedgerWatch ledger_;
    SoakCounts counts_;
    std::string failure_;
};

}  // namespace kvw
