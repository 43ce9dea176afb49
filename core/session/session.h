#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend/backend.h"
#include "core/engine/sampler.h"
#include "core/engine/transformer.h"
#include "core/model/model.h"
#include "core/model/model_loader.h"
#include "core/policy/brightness.h"
#include "core/policy/proposer.h"
#include "core/session/frame.h"
#include "core/session/frame_sharing.h"
#include "core/session/invariant_history.h"
#include "core/session/session_checkpoint.h"
#include "core/session/trace.h"
#include "core/state/drift_report.h"
#include "core/state/state_manager.h"
#include "core/state/tick.h"
#include "core/wlod/wlod_context.h"

namespace kvw {

struct ReplayReport;
class StateError;

// How a session's trace hashes its states (ARCHITECTURE §6.1): the digest of chunk digests
// with the ledger's brightness sums and each block of rows read as streams that go on
// (StateManager::state_hash, trace header "xxh64-chunks-bsum-streams"); the same with each
// block's counts first, as traces written before the streams were hashed (header
// "xxh64-chunks-bsum"); that with every brightness value's bytes, as traces written before
// the sums were hashed (header "xxh64-chunks"); or the stream hash of the traces written
// before the digest of digests (header "xxh64"). A session replaying a trace hashes as it did.
enum class StateHashKind { BlockStreams, ChunkDigest, ChunkDigestBrightnessBytes, Stream };
// The state digest's form of a kind (Stream, which is no digest of digests: the default).
DigestForm digest_form(StateHashKind kind);

// What a tick does with a proposed action that pre-flight refuses (ARCHITECTURE §2.1): drop it
// and apply the rest of the list, or refuse the whole tick as sessions did before (trace header
// without "invalid_proposals"), so that their traces replay as they ran.
enum class InvalidProposals { Drop, RejectTick };

struct SessionOptions {
    std::string model = kDefaultModelSpec;  // anything load_model() takes
    // A name of backend_names(), or "auto": the session resolves it (resolve_backend) and
    // records the backend it runs on. The library's default is the numeric reference; the
    // programs default to "auto".
    std::string backend = "cpu";
    // Rows per layer; 0: min(model context, 8192); else checked (InvalidCapacity). 64 bits, so
    // that a count from the command line reaches the check unwrapped.
    int64_t capacity = 0;
    RopePolicy rope_policy = RopePolicy::FinalIndex;
    CacheLayout layout = CacheLayout::Contiguous;
    RingOptions ring;  // the ring layout's mode, sinks, tokens_per_block (ARCHITECTURE §17)
    KvType k_type = KvType::F32;  // storage types of the cached K and V rows
    KvType v_type = KvType::F32;
    std::string proposer = "manual";  // a name of policy_table()
    PolicyOptions policy;             // budgets, seed, gate of a selective proposer
    SamplingParams sampling;          // seed included
    BrightnessParams brightness;
    bool guard = true;
    // wLOD (ARCHITECTURE §14): tokens per block; 0 keeps it off. With it on, every tick ends
    // with WlodContext::regenerate and the wLOD invariants join the panel.
    int wlod_k = 0;
    int64_t wlod_max = 0;                    // W_max, rows the focus policy keeps to; 0: no budget
    double wlod_full_recompute_below = 0.1;  // WlodOptions::full_recompute_below
    // A learned GistNet's sidecar (*.gist.gguf, core/gist/gist_file.h); empty: mean pooling.
    // Its embedding width must be the model's n_embd, its K the session's (ModelError
    // ShapeMismatch naming the file otherwise).
    std::string gist_net;
    StateHashKind state_hash = StateHashKind::BlockStreams;
    // `kvw run --guard full`: after every command the incremental state digest and invariants
    // are compared with their from-scratch references (ARCHITECTURE §6.1), as the invariant
    // "incremental_state" of the panel and the trace.
    bool guard_full = false;
    InvalidProposals invalid_proposals = InvalidProposals::Drop;
};

// Owns model, engine and coupled state, and runs tick transactions (ARCHITECTURE §2.1):
// Step 1 samples the next token from the last logits, Step 2 updates brightness from the
// attention mass the last append measured, Step 3 asks the proposer and merges its actions with
// the injected ones, Step 4 applies the list (edits, then the sampled token as an add).
// Every command is recorded in the trace, so that replay() reproduces the state hash of each.
//
// Not thread-safe: one thread (the SessionController's worker in the app) drives it.
class Session {
public:
    // Loads the model and creates the backend: ModelError / std::invalid_argument.
    explicit Session(SessionOptions options);
    // Shares an already loaded model (tests, benchmarks).
    Session(SessionOptions options, std::shared_ptr<const Model> model);
    ~Session();
    // Undo, restore and fork move whole replayed sessions (session_history.cpp); no copies.
    Session(Session&& other) noexcept = default;

    // Starts a new sequence: a fresh state (cache, mirror and ledger, in the current layout
    // and RoPE policy), then BOS + the prompt prefilled at tick 0. Throws CapacityExceeded
    // when it does not fit, PolicyInputError when the proposer cannot serve the model; the
    // session keeps its previous sequence then.
    void start(std::string_view prompt);
    // start() with the sequence given as token ids, used as they are (no BOS added): the
    // teacher-forced evaluation (core/eval) feeds the tokens of a text it has cut into chunks.
    void start_tokens(std::span<const int32_t> ids);
    // One tick. Needs start(). Returns what Step 4 did; a rejected or aborted list is reported
    // there (and in the frame), never thrown. Under the ring layout a tick decodes a block of
    // ring.tokens_per_block tokens (block decoding, ARCHITECTURE §17); elsewhere one token.
    TickResult step();
    // A sampled tick of exactly one token whatever the ring's decode block: how a tick event
    // without "tokens" replays (recorded before block decoding, or with blocks of 1;
    // ARCHITECTURE §17).
    TickResult step_one_token();
    // A tick whose Step 1 takes `token` instead of sampling (teacher forcing); Steps 2-4 as in
    // step(), so the proposer edits the cache as it would while generating.
    TickResult step_forced(int32_t token);
    // A tick that decodes exactly these tokens as one block instead of sampling (a recorded
    // block tick replayed); one token is step_forced(token).
    TickResult step_forced(std::span<const int32_t> tokens);
    // Queues actions for the next tick after a pre-flight check against the current state;
    // throws ActionsRejected (nothing queued) when the check fails.
    void inject(const ActionList& actions);
    // Step 4 alone, now, at the current tick (no sampling, no proposer).
    TickResult apply_now(const ActionList& actions);
    void clear_injected();

    void rebuild();
    const DriftReport& measure_drift();
    // A new proposer from the table with the current policy options; a selective one starts
    // its bookkeeping from the rows as they are (its first tick bulk-prunes).
    void set_proposer(std::string_view name);  // UnknownProposer, PolicyInputError
    // The current proposer again, with other budgets / seed / gate.
    // BudgetError for a budget no selective policy can keep, whatever the policy is now;
    // PolicyInputError when the policy cannot be made with these options. Nothing changes then.
    void set_policy_options(const PolicyOptions& options);
    // Re-derives every row's phase for the policy and rebuilds the cache from the mirror.
    void set_rope_policy(RopePolicy policy);
    // Moves the cache to another layout (StateManager::set_layout); the state hash stays.
    void set_layout(CacheLayout layout);
    // The same with the ring's options (a ring moves to new options the same way) and, when
    // `capacity` != 0, rows per layer (a ring's T) for this sequence and the next ones
    // (StateManager::set_layout says what it refuses).
    void set_layout(CacheLayout layout, const RingOptions& ring, int64_t capacity = 0);
    // Stores the cache's K and V in other types (StateManager::set_kv_types).
    void set_kv_types(KvType k, KvType v);
    void set_guard(bool on);
    // Turns wLOD on with K tokens per block and a budget of W_max rows (0: none), changes
    // them, or turns it off (k 0), from now on and for the next sequences (ARCHITECTURE §14).
    // Turning it on (or changing K) starts a tree that has seen nothing, so the regeneration
    // that ends this command makes every gist and recomputes every row. StateError(WlodShape)
    // when k is 1 or negative, w_max is negative, or K would change while a gist row is in the
    // context (its span was cut with the old K: expand it first) or the learned gist net was
    // made for another K; nothing changes then. Off keeps the gist rows there are.
    void set_wlod(int k, int64_t w_max);
    // Gists from the learned net of this sidecar (*.gist.gguf), or mean pooling (empty path),
    // from now on: ModelError when the file does not read or was made for another width or K;
    // StateError(WlodShape) while a gist row is in the context (it was made by the old net:
    // expand it first). The whole tree regenerates when wLOD is on.
    void set_gist_net(const std::string& path);
    // Runs the model on another backend from now on (a name of backend_names() or "auto",
    // recorded as the backend it resolves to), and clones, checkpoints and replays make that one
    // too: a new engine, and the state copied onto it (StateManager's copy with an engine). The
    // cached rows, the last logits and the state hash stay as the old backend computed them, so
    // that the next drift check compares them with a recompute on the new backend (the numeric
    // difference between the two) and a rebuild recomputes them there. std::invalid_argument
    // naming the backend and why for an unknown or unavailable one; nothing changes then.
    void set_backend(std::string_view name);

    // ---- history (ARCHITECTURE §15; session_history.cpp) ---------------------------------------
    // The unit of undo is one command: one trace event after the header (a tick, an inject, an
    // apply_now, a rebuild, a policy change, ...). undo() rebuilds the session as it was before
    // the last `steps` commands by repeating its trace up to there on the same model, and puts
    // the undone events on the redo stack; redo() repeats them. Both check every recorded state
    // hash on the way: HistoryError(NotReproduced) when one differs (undo: nothing changed).
    // Any other command drops the redo stack.
    void undo(int steps = 1);  // HistoryError(NothingToUndo): fewer commands than steps
    // HistoryError(NothingToRedo); NotReproduced: the commands before the one that differed stay
    // done, the rest stay on the stack.
    void redo(int steps = 1);
    int undo_depth() const;  // commands undo() can take back
    int redo_depth() const;  // commands redo() can repeat
    // Keeps the trace so far under `name` (replacing one of that name); not a command.
    void snapshot(const std::string& name);
    // The session as it was at snapshot(name), its trace included (undo goes on from there);
    // the redo stack is dropped. HistoryError(UnknownSnapshot).
    void restore(const std::string& name);
    std::vector<std::string> snapshot_names() const;
    // A second session on the same model: this one's trace up to the command that brought the
    // current sequence to `tick` (start for 0), repeated; its state hash equals this session's
    // at that tick. HistoryError(NoSuchTick, NotReproduced).
    std::unique_ptr<Session> fork(int64_t tick) const;

    // ---- checkpoints (ARCHITECTURE §16; session_checkpoint.cpp) --------------------------------
    // An exact copy of the session as it is now, on the same model with its own backend and
    // engine: its trace, state, proposer, wLOD and sampler state, queued actions; stepping one
    // leaves the other unchanged. It shares this one's checkpoints; its redo stack and
    // snapshots start empty.
    std::unique_ptr<Session> clone() const;
    // The session keeps a checkpoint every `every` ticks within a memory budget; undo, restore,
    // fork (and so the window's past ticks) start from the nearest one that serves the point
    // they go to and replay only the rest.
    void set_checkpoint_options(const CheckpointOptions& options);
    const CheckpointStore& checkpoints() const { return checkpoints_; }

    // A new immutable snapshot of everything the views show.
    // Not const itself, so that whoever owns the session may add to it before handing it out
    // (the window's worker adds the A/B state).
    std::shared_ptr<Frame> frame() const;

    int64_t tick() const { return tick_; }
    bool started() const { return started_; }
    // The state's hash of the kind options().state_hash names, as the trace records it.
    uint64_t state_hash() const;
    const StateManager& state() const { return *state_; }
    const Model& model() const { return *model_; }
    // The model, for another session on it (the window's A/B sides).
    std::shared_ptr<const Model> shared_model() const { return model_; }
    const SessionOptions& options() const { return options_; }
    const Trace& trace() const { return trace_; }
    // Step timings summed over every tick since the session was made (all sequences), and the
    // number of ticks: what `kvw bench policies` divides.
    const StepTimings& summed_timings() const { return summed_timings_; }
    int64_t timed_ticks() const { return timed_ticks_; }
    // The wLOD bookkeeping; null while wLOD is off.
    const WlodContext* wlod() const { return wlod_.get(); }

    // Test hook (see StateManager::debug_desync_row): breaks the mirror of one row.
    void debug_desync_row(int layer, int row);
    // Arms a fault at the `primitive`-th cache primitive (1-based; 0 disarms) of the next action
    // list applied, so that the abort and rollback of a tick can be watched (command::InjectFault).
    // SessionError BadArgument for a negative count.
    void inject_fault(int primitive);

private:
    friend class SessionCheckpoint;
    friend std::unique_ptr<Session> session_from_trace(const Trace&, size_t,
                                                       std::shared_ptr<const Model>, ReplayReport&,
                                                       const CheckpointStore*);
    // A deep copy of every member the next command depends on (session_checkpoint.cpp), with a
    // backend and engine of its own (`with_engine`) or none (a checkpoint's dormant copy, only
    // ever copied from, which shares the cache blocks that did not change with `earlier`, the
    // dormant copy before it, if any). Neither the trace nor the history (redo stack,
    // snapshots, checkpoints) is copied: the callers set what they need. A member added to
    // Session is added there too.
    Session(const Session& other, bool with_engine, const Session* earlier = nullptr);
    // Becomes `other`, keeping the redo stack, the snapshots and the checkpoints.
    void become(std::unique_ptr<Session> other);
    // Called in the handler of a StateError a command threw part way: a NonFinite one (a NaN
    // or an infinity made by a gist, a forward pass or a gate's score) first puts the session
    // back as its trace left it, repeated from the nearest checkpoint as undo does, so that the
    // failed command changed nothing. Rethrows the error either way.
    [[noreturn]] void rethrow_rewound(const StateError& error);
    // What a new sequence replaces at once: its proposer, state and wLOD bookkeeping.
    struct Sequence {
        std::unique_ptr<Proposer> proposer;
        std::unique_ptr<StateManager> state;
        std::unique_ptr<WlodContext> wlod;
    };
    Sequence fresh_sequence() const;
    // Takes `sequence` over and forgets the per-sequence rest (tick, queued actions, results).
    void adopt(Sequence sequence);
    void prefill(std::span<const int32_t> ids, std::string prompt, nlohmann::json event);
    // `forced` empty: sample `sampled` tokens; else decode these tokens.
    TickResult tick(std::span<const int32_t> forced, int sampled = 1);
    // Step 4 of a tick whose list is [injected..., proposed [first_proposed, end_proposed),
    // adds...]: applied; while pre-flight refuses proposed actions (InvalidProposals::Drop) they
    // are taken out of `list` and the rest is applied again. Refusals of injected actions or
    // adds refuse the tick as a whole.
    TickResult apply_tick_list(ActionList& list, int first_proposed, int end_proposed,
                               const DecodeBlock& block);
    // Tokens a sampled tick decodes: the ring's decode block, 1 under other layouts.
    int block_tokens() const;
    void new_state();
    std::unique_ptr<WlodContext> make_wlod_context(StateManager& state) const;
    // The net `path` names (mean pooling when empty), checked against the model's width.
    std::shared_ptr<const GistNet> load_gist_net(const std::string& path) const;
    // ModelError(ShapeMismatch) when the learned gist net was made for another K than k (> 0).
    void check_gist_net_k(const GistNet& net, const std::string& path, int k) const;
    void require_started(const char* command) const;
    void refresh_invariants();
    void light_new_records(int64_t first_id);
    // `given`: the list as Step 4 received it (TickResult indices refer to it).
    void note_result(const TickResult& result, const ActionList& given);
    // Step 2; keeps each layer's brightness before the update in brightness_before_, to put
    // back when Step 4 rejects the list (restore_brightness).
    void update_brightness();
    void restore_brightness();
    ActionList propose_and_merge();  // Step 3

    SessionOptions options_;
    std::shared_ptr<const Model> model_;
    std::unique_ptr<Backend> backend_;
    // The capacity the session started with: the context its engine is made for (LongRoPE's
    // factors, Transformer), kept by copies and checkpoints when set_layout changes the rows.
    int64_t engine_context_ = 0;
    std::unique_ptr<Transformer> engine_;
    std::unique_ptr<StateManager> state_;
    std::unique_ptr<Proposer> proposer_;
    std::unique_ptr<WlodContext> wlod_;
    std::shared_ptr<const GistNet> gist_net_;  // what options_.gist_net names, loaded once
    Sampler sampler_;
    Trace trace_;
    InvariantHistory invariants_;

    bool started_ = false;
    std::string prompt_;
    int64_t tick_ = 0;
    ActionList injected_;
    int armed_fault_ = 0;  // inject_fault's primitive, handed to the next list applied
    ActionList last_actions_;
    std::vector<int> last_given_index_;
    TickResult last_result_;
    std::string last_error_;
    StepTimings timings_;
    StepTimings summed_timings_;
    int64_t timed_ticks_ = 0;
    DriftReport drift_;
    bool drift_current_ = false;

    // Undone events, the next one to redo last; valid while the trace has redo_base_ events
    // (any new command adds one and so drops them).
    std::vector<nlohmann::json> redo_;
    size_t redo_base_ = 0;
    std::map<std::string, Trace> snapshots_;
    CheckpointStore checkpoints_;
    // What the last Frame held, shared with the next one where unchanged (frame() is const:
    // sharing is a cost saving, invisible in what a Frame holds).
    mutable FrameSharing frame_sharing_;
    // [layer][row]: Step 2's values before, reused tick after tick (a fresh 8.8 MB at
    // 22 x 100,000 rows was a page fault per 4 KiB every tick); a copy of the session starts
    // without them.
    std::vector<std::vector<float>> brightness_before_;
};

}  // namespace kvw
