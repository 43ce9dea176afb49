#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/cache/kv_layout.h"
#include "core/mirror/ledger.h"
#include "core/session/trace.h"

namespace kvw {

class Session;

// The memory a session's checkpoints may take unless told otherwise: an eighth of what the
// system had available when first asked, and at least 256 MiB. A fixed 256 MiB held not one
// checkpoint of a 22-layer model at 8,192 rows (over 300 MiB in f32), so every replay of such
// a session started at the trace's beginning (ARCHITECTURE §16).
uint64_t default_checkpoint_budget();

// How often a session keeps a checkpoint, and how much memory they may take
// (ARCHITECTURE §16).
struct CheckpointOptions {
    // A checkpoint after every tick that reaches a multiple of this (0: none). Going back to
    // any point then replays at most this many ticks (until the budget widens the spacing).
    int every = 16;
    // When the kept checkpoints take more, every second one goes and the spacing doubles.
    uint64_t budget_bytes = default_checkpoint_budget();
    // Nor may more be kept than this (thinned the same way), so that a long run holds a bounded
    // number of copies of its live rows whatever the budget: the budget is an eighth of the
    // machine, which copies of a few rows each take thousands of ticks to reach.
    size_t max_kept = 64;
};

// An exact copy of a session at one point of its trace: everything the next command depends
// on (the cache with its layout's bookkeeping, mirror, ledger, the proposer's and the wLOD
// bookkeeping, the sampler's random state, the queued actions, brightness), but neither its
// backend and engine nor its trace: it serves any trace whose first events() events are those
// it was taken after (Trace::prefix_hash), and restore() gives back a live session on them.
class SessionCheckpoint {
public:
    // `earlier`: the checkpoint before it in the same store, if any, whose cache blocks it
    // shares where the rows did not change since (KvLayout::dormant_clone).
    explicit SessionCheckpoint(const Session& session, const SessionCheckpoint* earlier = nullptr);
    ~SessionCheckpoint();
    SessionCheckpoint(const SessionCheckpoint&) = delete;
    SessionCheckpoint& operator=(const SessionCheckpoint&) = delete;

    size_t events() const { return events_; }  // trace events it follows, the header included
    int64_t tick() const { return tick_; }
    // The memory it holds alone (an estimate); its ledger's chunks and the blocks of its cache
    // and maps, shared with the session and the other checkpoints, are not in it.
    uint64_t own_bytes() const { return own_bytes_; }
    const Ledger& ledger() const;
    const KvLayout& cache() const;  // dormant
    // Calls `f(block, bytes)` once per cache slab block and map block it holds, shared or not.
    void for_each_shared_block(const std::function<void(const void*, uint64_t)>& f) const;
    // Whether `trace`'s first `events` events begin with the ones this was taken after.
    bool serves(const Trace& trace, size_t events) const;
    // The session as it was: its own backend and engine on the checkpoint's model, and
    // `trace`'s first events() events as its trace. serves(trace, events()) must hold.
    std::unique_ptr<Session> restore(const Trace& trace) const;

private:
    std::unique_ptr<const Session> dormant_;  // no backend, no engine: only copied from
    size_t events_ = 0;
    uint64_t prefix_hash_ = 0;
    int64_t tick_ = 0;
    uint64_t own_bytes_ = 0;
};

// The checkpoints a session keeps, in trace order, each one serving the session's trace.
// Shared, not copied, with the sessions restored or forked from it.
class CheckpointStore {
public:
    const CheckpointOptions& options() const { return options_; }
    // Other spacing or budget from now on; the kept checkpoints stay (within the new budget).
    void set_options(const CheckpointOptions& options);
    // After a tick that advanced `session` (a refused one did not): a new checkpoint when its
    // tick is a multiple of the spacing, then the budget enforced.
    void after_tick(const Session& session);
    // The checkpoint with the most events, at most `events`, that serves `trace`; null: none.
    std::shared_ptr<const SessionCheckpoint> nearest(const Trace& trace, size_t events) const;
    // Drops those that do not serve `trace`'s first `events` events (an undo or a restore
    // replaced the trace, a fork or a past tick goes back to a point of it).
    void keep_serving(const Trace& trace, size_t events);

    size_t size() const { return kept_.size(); }
    // What the kept checkpoints hold: each one's own bytes, and every ledger chunk (records and
    // brightness) and cache or map block they hold once however many of them share it. Kept
    // up to date as checkpoints come and go: a new one counts only the pieces it adds.
    uint64_t bytes() const { return bytes_; }
    int spacing() const { return spacing_; }  // ticks between checkpoints now
    const std::vector<std::shared_ptr<const SessionCheckpoint>>& kept() const { return kept_; }

private:
    void enforce_budget();
    // Counts a checkpoint in bytes() (copies = 1) or out of it (copies = -1).
    void count(const SessionCheckpoint& checkpoint, int copies);
    void drop_if(const std::function<bool(const SessionCheckpoint&)>& drop);

    // A ledger chunk or a cache or map block, with the number of kept checkpoints holding it.
    struct Piece {
        uint64_t bytes = 0;
        int copies = 0;
    };

    CheckpointOptions options_;
    int spacing_ = CheckpointOptions{}.every;
    std::vector<std::shared_ptr<const SessionCheckpoint>> kept_;
    std::unordered_map<const void*, Piece> pieces_;  // what the kept ones hold, by address
    uint64_t bytes_ = 0;                             // bytes()
};

}  // namespace kvw
