#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/session/session.h"
#include "core/session/soak_actions.h"
#include "core/session/soak_checks.h"

namespace kvw {

struct SoakOptions {
    std::string model = "synthetic:tiny";
    std::string backend = "cpu";
    int64_t ticks = 300;
    uint64_t seed = 1;
    // Rows per layer: small, so that edits and appends meet the limit; at least
    // Soak::kMinCapacity (0: the session's default).
    int64_t capacity = 96;
    // Ticks per Session: the trace and the ledger grow with every tick by design, so memory is
    // judged between sessions. 0: ticks / 5, within [50, 2000].
    int64_t segment_ticks = 0;
    uint64_t rss_slack_bytes = 64ull << 20;  // growth allowed after the first session
    // Every second session is a systems session (SystemsSoak): policies, rings, K/V types,
    // wLOD, history. Their smartkv sessions need a gate sidecar made for the model, and their
    // learned gists a gist net of its width; without them those are left out.
    bool systems = true;
    std::string gate;
    std::string gist_net;
    // Where the trace of a session that fails is written, to replay and look at (empty: not).
    std::string failure_trace;
    // Within a session, every this many ticks: the checkpoints must hold no more than
    // checkpoint_bound() (0: not checked).
    int64_t memory_check_ticks = 16;
};

// What a session's checkpoints may hold (ARCHITECTURE §16): its ledger once, at a generous
// 1 KiB a record, and per kept copy its live rows (twice the live slab, for the maps and the
// last logits) and the two ledger chunks a run writes after a copy is taken. A checkpoint that
// copied the whole ledger broke it within a few thousand ticks (issue 26 item 7).
uint64_t checkpoint_bound(const Session& session);

struct SoakCounts {
    int64_t ticks = 0;
    int64_t valid_lists = 0;     // injected or applied now, all applied
    int64_t rejected_lists = 0;  // invalid ones, all refused with nothing changed
    int64_t rebuilds = 0;
    int64_t drift_checks = 0;
    int64_t layout_switches = 0;
    int64_t policy_changes = 0;
    int64_t restarts = 0;  // new prompts
    int64_t sessions = 0;
    // Systems sessions (SystemsSoak) and what only they do.
    int64_t systems_sessions = 0;
    int64_t refusals = 0;  // commands refused with nothing changed
    int64_t kv_type_changes = 0;
    int64_t backend_switches = 0;  // Session::set_backend, rows kept
    int64_t wlod_changes = 0;      // wLOD on / off / K / W_max and gist-net switches
    int64_t collapses = 0;         // wLOD collapse and expand lists
    int64_t history = 0;           // undo, redo, snapshot, restore
    int64_t forks = 0;
    // Sessions of both kinds whose own trace replayed with every outcome equal.
    int64_t replays = 0;
};

struct SoakReport {
    SoakCounts counts;
    uint64_t rss_after_warmup = 0;       // bytes, at the end of the first session
    uint64_t rss_last = 0;               // bytes, at the end of the latest session
    uint64_t peak_rss = 0;               // bytes (VmHWM)
    uint64_t peak_checkpoint_bytes = 0;  // the most a session's checkpoints held when checked
    double seconds = 0;
    std::string failure;  // the first broken expectation; empty when none
    int64_t failed_tick = -1;
    bool ok() const { return failure.empty(); }
};

// Drives a Session with random commands (ticks, valid and invalid injected and applied-now
// action lists, rebuilds, drift checks, cache layout and RoPE policy switches, new prompts)
// and checks after each one what must hold (ARCHITECTURE.md, coupled state): the invariants
// pass; every layer holds the tokens a plain reference sequence edited by the same lists
// holds; the ledger never shrinks and its records keep id, kind, token and birth tick; a valid
// list is applied, an invalid one is refused with a typed error and an unchanged state hash;
// drift is zero while no edit has made rows stale (and appends went to layers that all hold
// the same rows); a layout switch keeps the state hash.
class Soak {
public:
    static constexpr int64_t kMinCapacity = 64;
    // Throws std::invalid_argument for a capacity below kMinCapacity.
    Soak(SoakOptions options, std::shared_ptr<const Model> model);

    // One random command and its checks; false (and failure()) at the first broken expectation.
    bool step();
    // The checks that hold after every command; the first problem, or empty.
    std::string check() const;

    const SoakCounts& counts() const { return counts_; }
    const std::string& failure() const { return failure_; }
    Session& session() { return *session_; }

private:
    void new_session();
    void restart();
    bool fail(std::string what);
    bool tick(const ActionList& injected);
    bool apply_now(const ActionList& list);
    bool refuse(const ActionList& list, bool by_inject);
    bool rebuild_and_check_drift();
    bool check_drift();
    bool switch_layout();
    bool change_policy();

    SoakOptions options_;
    std::shared_ptr<const Model> model_;
    std::mt19937_64 rng_;
    std::unique_ptr<Session> session_;
    SoakSequence reference_;
    LedgerWatch ledger_;
    // No edit since the last full computation, and appends only while all layers agree:
    // drift must be zero.
    bool clean_ = true;
    SoakCounts counts_;
    std::string failure_;
};

// Runs Soak::step() until `options.ticks` ticks, starting a fresh Session every segment and
// checking that the resident memory at the end of each session stays within the slack of the
// first; `progress` is called at every session's end.
SoakReport run_soak(const SoakOptions& options,
                    const std::function<void(const SoakReport&)>& progress = {});

// Resident and peak resident memory of this process in bytes (0 where /proc says nothing).
uint64_t resident_bytes();
uint64_t peak_resident_bytes();

}  // namespace kvw
