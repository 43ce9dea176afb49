// Session commands other than the tick itself (session_tick.cpp) and the frame (session_frame.cpp).
#include "core/session/session.h"

#include <chrono>

#include <algorithm>
#include <utility>

#include <spdlog/spdlog.h>

#include "core/backend/backend_registry.h"
#include "core/gist/gist_file.h"
#include "core/model/model_error.h"
#include "core/model/model_loader.h"
#include "core/policy/policy_table.h"
#include "core/session/command/session_command.h"
#include "core/session/fault_scope.h"
#include "core/session/option_conflicts.h"
#include "core/session/session_error.h"
#include "core/session/trace_events.h"
#include "core/state/state_error.h"

namespace kvw {

namespace {

// The views and the edit benchmarks work up to 8,192 rows; a model's trained context may be
// far longer, and the capacity is allocated up front for every layer.
constexpr int kDefaultCapacityLimit = 8192;

// A command's event (its to_json(), with outcomes of its own added) goes into the trace with the
// tick the session is at, which every event carries; a command that changes the state adds the
// state hash after it too.
void record(Trace& trace, nlohmann::json event, int64_t tick) {
    event["tick"] = tick;
    trace.add(std::move(event));
}

void record_hashed(Trace& trace, nlohmann::json event, int64_t tick, uint64_t state_hash) {
    event["state_hash"] = hash_hex(state_hash);
    record(trace, std::move(event), tick);
}

// The options with "auto" replaced by the backend it stands for: the trace header, clones,
// checkpoints and forks name the backend the session runs on (ARCHITECTURE §18.1).
SessionOptions with_backend_resolved(SessionOptions options) {
    options.backend = resolve_backend(options.backend);
    return options;
}

}  // namespace

Session::Session(SessionOptions options) : Session(options, load_model(options.model)) {}

Session::Session(SessionOptions options, std::shared_ptr<const Model> model)
    : options_(with_backend_resolved(std::move(options))),
      model_(std::move(model)),
      backend_(create_backend(options_.backend)),
      sampler_(options_.sampling) {
    if (options_.capacity == 0)  // a negative one is refused when the state is made
        options_.capacity = std::min(model_->config.max_context, kDefaultCapacityLimit);
    engine_context_ = options_.capacity;
    engine_ = std::make_unique<Transformer>(model_, *backend_, engine_context_);
    gist_net_ = load_gist_net(options_.gist_net);
    check_gist_net_k(*gist_net_, options_.gist_net, options_.wlod_k);
    new_state();  // refuses a bad capacity before a conflict is judged with it
    check_option_conflicts(options_);
    trace_.add(trace_header(options_));
    spdlog::info("session: {} ({}), backend {}, capacity {} rows", model_->source,
                 model_->file_type, backend_->name(), options_.capacity);
    if (model_->config.rope_scaling == RopeScaling::LongRope)
        spdlog::info(
            "session: LongRoPE with the {} factors for the whole session (capacity {} "
            "{} the original context of {})",
            model_->config.uses_long_rope(engine_context_) ? "long" : "short", engine_context_,
            model_->config.uses_long_rope(engine_context_) ? ">" : "<=",
            model_->config.rope_original_context);
}

Session::~Session() = default;

Session::Sequence Session::fresh_sequence() const {
    Sequence s;
    s.proposer = make_proposer(options_.proposer, options_.policy);
    StateOptions so{options_.capacity, options_.rope_policy, options_.guard, options_.layout,
                    std::nullopt,      options_.k_type,      options_.v_type};
    if (options_.wlod_k > 0) so.wlod_k = options_.wlod_k;
    so.ring = options_.ring;
    s.state = std::make_unique<StateManager>(*engine_, so);
    s.state->set_gist_net(gist_net_);
    if (options_.wlod_k > 0) s.wlod = make_wlod_context(*s.state);
    return s;
}

void Session::new_state() { adopt(fresh_sequence()); }

DigestForm digest_form(StateHashKind kind) {
    switch (kind) {
        case StateHashKind::ChunkDigest: return {BrightnessInDigest::Sum, BlockDigest::Head};
        case StateHashKind::ChunkDigestBrightnessBytes:
            return {BrightnessInDigest::Bytes, BlockDigest::Head};
        case StateHashKind::BlockStreams:
        case StateHashKind::Stream: break;
    }
    return {};
}

uint64_t Session::state_hash() const {
    if (options_.state_hash == StateHashKind::Stream) return state_->stream_state_hash();
    return state_->state_hash(digest_form(options_.state_hash));
}

void Session::adopt(Sequence sequence) {
    proposer_ = std::move(sequence.proposer);
    state_ = std::move(sequence.state);
    wlod_ = std::move(sequence.wlod);
    invariants_.clear();
    injected_.clear();
    armed_fault_ = 0;
    last_actions_.clear();
    last_given_index_.clear();
    last_result_ = {};
    last_error_.clear();
    timings_ = {};
    drift_current_ = false;
    started_ = false;
    tick_ = 0;
}

std::shared_ptr<const GistNet> Session::load_gist_net(const std::string& path) const {
    if (path.empty()) return default_gist_net();
    std::shared_ptr<const GistNet> net = read_gist_net_file(path);
    if (net->embedding_length() != model_->config.n_embd)
        throw ModelError(ModelErrorKind::ShapeMismatch, path,
                         "gist.embedding_length " + std::to_string(net->embedding_length()) +
                             ", the model's n_embd is " + std::to_string(model_->config.n_embd));
    return net;
}

void Session::check_gist_net_k(const GistNet& net, const std::string& path, int k) const {
    if (k > 0 && net.block_size() > 0 && net.block_size() != k)
        throw ModelError(ModelErrorKind::ShapeMismatch, path,
                         "gist.block_size " + std::to_string(net.block_size()) +
                             ", the session's K is " + std::to_string(k));
}

// A new context over the current state: it has seen nothing yet, so its first regeneration
// makes every gist and recomputes every row.
std::unique_ptr<WlodContext> Session::make_wlod_context(StateManager& state) const {
    WlodOptions wo;
    wo.w_max = options_.wlod_max;
    wo.full_recompute_below = options_.wlod_full_recompute_below;
    return std::make_unique<WlodContext>(state, wo);
}

void Session::start(std::string_view prompt) {
    prefill(model_->tokenizer.encode(prompt, true), std::string(prompt),
            command::Start{std::string(prompt)}.to_json());
}

void Session::start_tokens(std::span<const int32_t> ids) {
    prefill(ids, model_->tokenizer.decode(ids),
            command::Start{std::vector<int32_t>(ids.begin(), ids.end())}.to_json());
}

// The part of start() and start_tokens() after the prompt became ids; `event` is the trace
// event that says which of the two ran. The new sequence is built aside and only then replaces the
// current one: the prompt may not fit (CapacityExceeded), and the proposer's first observe() may
// refuse the model (smartkv without a gate reads its sidecar there). Either way the session keeps
// what it had.
void Session::prefill(std::span<const int32_t> ids, std::string prompt, nlohmann::json event) {
    check_model_files(*model_);
    Sequence next = fresh_sequence();
    next.state->append(ids, EntryKind::Prompt, 0);
    next.proposer->observe(*next.state, true);
    adopt(std::move(next));
    prompt_ = std::move(prompt);
    sampler_ = Sampler(options_.sampling);
    light_new_records(0);
    started_ = true;
    refresh_invariants();
    record_hashed(trace_, std::move(event), tick_, state_hash());
    spdlog::info("prompt: {} tokens", ids.size());
}

void Session::inject(const ActionList& actions) {
    require_started("inject");
    check_no_collapse_under(options_.proposer, actions);
    ActionList queued = injected_;
    queued.insert(queued.end(), actions.begin(), actions.end());
    std::vector<ValidationError> errors = validate_action_list(queued, sequence_shape(*state_));
    nlohmann::json event = command::Inject{actions}.to_json();
    if (!errors.empty()) {
        event["rejected"] = true;
        record(trace_, std::move(event), tick_);
        ActionsRejected rejected(std::move(errors));
        last_error_ = rejected.what();
        // The caller reports the refusal (the window's log, the CLI's output): once is enough.
        spdlog::debug("inject: {}", last_error_);
        throw rejected;
    }
    record(trace_, std::move(event), tick_);
    injected_ = std::move(queued);
    last_error_.clear();
}

void Session::clear_injected() {
    injected_.clear();
    record(trace_, command::ClearInjected{}.to_json(), tick_);
}

TickResult Session::apply_now(const ActionList& actions) {
    check_model_files(*model_);
    require_started("apply_now");
    check_no_collapse_under(options_.proposer, actions);
    try {
        const int64_t first_new = state_->ledger().size();
        const double forward_before = state_->forward_ms();
        const auto start = std::chrono::steady_clock::now();
        TickResult result = [&] {
            const FaultScope fault(*state_, armed_fault_);
            return apply_action_list(*state_, actions, tick_);
        }();
        proposer_->observe(*state_, false);
        // Step 4 alone ran: the timings are its own, not the previous step's.
        timings_ = {};
        timings_.apply_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        timings_.total_ms = timings_.apply_ms;
        timings_.forward_ms = state_->forward_ms() - forward_before;
        light_new_records(first_new);
        note_result(result, actions);
        nlohmann::json event = command::ApplyNow{actions}.to_json();
        event["result"] = tick_result_json(result);
        record_hashed(trace_, std::move(event), tick_, state_hash());
        return result;
    } catch (const StateError& e) {
        rethrow_rewound(e);
    }
}

void Session::rebuild() {
    check_model_files(*model_);
    require_started("rebuild");
    state_->rebuild_from_mirror();
    drift_current_ = false;
    refresh_invariants();
    record_hashed(trace_, command::Rebuild{}.to_json(), tick_, state_hash());
    spdlog::info("rebuilt the cache from the mirror at tick {}", tick_);
}

const DriftReport& Session::measure_drift() {
    check_model_files(*model_);
    require_started("drift");
    drift_ = state_->measure_drift();
    drift_current_ = true;
    nlohmann::json event = command::Drift{}.to_json();
    event["first_diverging_layer"] = drift_.first_diverging_layer;
    record(trace_, std::move(event), tick_);
    // Within the tolerance is not always zero: after a backend switch the rows differ from the
    // new backend's recompute in their last bits, which is what the user switched to see.
    float largest = 0.0f;
    for (const LayerDrift& layer : drift_.layers)
        for (const std::vector<float>* values : {&layer.k, &layer.v})
            for (float x : *values) largest = std::max(largest, x);
    if (drift_.first_diverging_layer < 0 && largest == 0.0f)
        spdlog::info("drift at tick {}: none, every layer matches a fresh pass", tick_);
    else if (drift_.first_diverging_layer < 0)
        spdlog::info("drift at tick {}: every layer within the tolerance {:.3g} (largest {:.3g})",
                     tick_, drift_.tolerance, largest);
    else
        spdlog::info("drift at tick {}: first diverging layer {}", tick_,
                     drift_.first_diverging_layer);
    return drift_;
}

void Session::set_proposer(std::string_view name) {
    SessionOptions next = options_;
    next.proposer = std::string(name);
    check_option_conflicts(next, ChangedSetting::Policy);
    check_no_gist_rows_under(name, *state_);
    auto made = make_proposer(name, options_.policy);  // throws before anything changes
    // A policy that cannot serve this model (smartkv without a fitting gate) throws here too,
    // before a prompt as well as after: observing the empty state checks the model.
    made->observe(*state_, false);
    options_.proposer = std::string(name);
    proposer_ = std::move(made);
    refresh_invariants();
    record(trace_, command::SetProposer{options_.proposer}.to_json(), tick_);
}

void Session::set_policy_options(const PolicyOptions& options) {
    // Checked here too, not only when a selective policy is made: a budget taken under `manual`
    // would otherwise fail later, when the policy changes.
    check_budget(options.budget);
    SessionOptions next = options_;
    next.policy = options;
    check_option_conflicts(next, ChangedSetting::Policy);
    auto made = make_proposer(options_.proposer, options);
    made->observe(*state_, false);
    options_.policy = options;
    proposer_ = std::move(made);
    refresh_invariants();
    record(trace_, command::SetPolicyOptions{options_.policy}.to_json(), tick_);
}

void Session::set_rope_policy(RopePolicy policy) {
    check_model_files(*model_);
    SessionOptions next = options_;
    next.rope_policy = policy;
    check_option_conflicts(next, ChangedSetting::Rope);
    options_.rope_policy = policy;
    state_->set_policy(policy);
    drift_current_ = false;
    refresh_invariants();
    record_hashed(trace_, command::SetRopePolicy{policy}.to_json(), tick_, state_hash());
}

void Session::set_layout(CacheLayout layout) { set_layout(layout, options_.ring); }

void Session::set_layout(CacheLayout layout, const RingOptions& ring, int64_t capacity) {
    check_model_files(*model_);
    SessionOptions next = options_;
    next.layout = layout;
    next.ring = ring;
    if (capacity != 0) next.capacity = capacity;
    check_option_conflicts(next, ChangedSetting::Layout);
    state_->set_layout(layout, ring, capacity);
    options_.layout = layout;
    options_.ring = ring;
    options_.capacity = state_->cache().capacity();
    refresh_invariants();  // a ring's own invariants join the panel now, not after a tick
    // Recorded as applied: the ring's options only for a ring, the rows per layer it has now.
    command::SetLayout applied{layout, std::nullopt, options_.capacity};
    if (layout == CacheLayout::Ring) applied.ring = ring;
    record_hashed(trace_, applied.to_json(), tick_, state_hash());
}

void Session::set_kv_types(KvType k, KvType v) {
    check_model_files(*model_);
    state_->set_kv_types(k, v);
    options_.k_type = k;
    options_.v_type = v;
    drift_current_ = false;
    refresh_invariants();  // the scales of int8 / FP8 rows are checked from now on
    record_hashed(trace_, command::SetKvTypes{k, v}.to_json(), tick_, state_hash());
}

void Session::set_guard(bool on) {
    options_.guard = on;
    state_->set_guard(on);
    record(trace_, command::SetGuard{on}.to_json(), tick_);
}

void Session::set_wlod(int k, int64_t w_max) {
    check_model_files(*model_);
    if (k < 0 || k == 1)
        throw StateError(StateErrorKind::WlodShape, "wlod",
                         "K is 0 (off) or a block size >= 2, not " + std::to_string(k));
    if (w_max < 0)
        throw StateError(StateErrorKind::WlodShape, "wlod",
                         "W_max is 0 (no budget) or a row count, not " + std::to_string(w_max));
    check_gist_net_k(*gist_net_, options_.gist_net, k);
    SessionOptions next = options_;
    next.wlod_k = k;
    next.wlod_max = w_max;
    check_option_conflicts(next, ChangedSetting::Wlod);
    // Refuses another K while a gist row is in the context, before anything changes. Off keeps
    // the state's K (and its gists, which collapse and expand still handle).
    if (k > 0) state_->set_wlod_k(k);
    const bool new_k = k != options_.wlod_k;
    options_.wlod_k = k;
    options_.wlod_max = w_max;
    if (k == 0)
        wlod_.reset();
    else if (new_k)
        wlod_ = make_wlod_context(*state_);
    else
        wlod_->set_w_max(w_max);
    drift_current_ = false;
    refresh_invariants();
    record_hashed(trace_, command::SetWlod{k, w_max}.to_json(), tick_, state_hash());
    if (k == 0)
        spdlog::info("wLOD off");
    else
        spdlog::info("wLOD on: K = {}, W_max = {}", k, w_max);
}

void Session::set_gist_net(const std::string& path) {
    check_model_files(*model_);
    std::shared_ptr<const GistNet> net = load_gist_net(path);
    check_gist_net_k(*net, path, options_.wlod_k);
    if (const auto held = state_->first_gist_row())
        throw StateError(StateErrorKind::WlodShape, "gist-net",
                         "layer " + std::to_string(held->first) + " row " +
                             std::to_string(held->second) +
                             " holds a gist made by the current net; expand the gists first");
    gist_net_ = std::move(net);
    options_.gist_net = path;
    state_->set_gist_net(gist_net_);
    if (wlod_) wlod_ = make_wlod_context(*state_);
    refresh_invariants();
    record_hashed(trace_, command::SetGistNet{path}.to_json(), tick_, state_hash());
    spdlog::info("gist net: {}", gist_net_->name());
}

void Session::set_backend(std::string_view name) {
    check_model_files(*model_);
    const std::string resolved = resolve_backend(name);
    std::unique_ptr<Backend> backend;
    try {
        backend = create_backend(resolved);
    } catch (const std::invalid_argument& e) {
        std::string known;
        for (const std::string& b : backend_names()) known += (known.empty() ? "" : ", ") + b;
        throw std::invalid_argument(std::string(e.what()) + " (known: " + known +
                                    ", auto); the session stays on " + options_.backend);
    }
    auto engine = std::make_unique<Transformer>(model_, *backend, engine_context_);
    auto state = std::make_unique<StateManager>(*state_, engine.get());
    // The state computes with the engine and the engine with the backend: the old ones go in
    // that order.
    state_ = std::move(state);
    engine_ = std::move(engine);
    backend_ = std::move(backend);
    const std::string from = std::exchange(options_.backend, resolved);
    drift_current_ = false;
    refresh_invariants();
    nlohmann::json event = command::SetBackend{options_.backend}.to_json();
    event["from"] = from;
    event["rows"] = "kept";
    record_hashed(trace_, std::move(event), tick_, state_hash());
    spdlog::info(
        "backend {} (was {}): the cached rows stay as {} computed them; drift compares them with "
        "{}, rebuild recomputes them there",
        backend_->name(), from, from, options_.backend);
}

void Session::inject_fault(int primitive) {
    if (primitive < 0)
        throw std::invalid_argument("fault: the primitive is counted from 1 (0 disarms), not " +
                                    std::to_string(primitive));
    armed_fault_ = primitive;
    record(trace_, command::InjectFault{primitive}.to_json(), tick_);
    if (primitive > 0)
        spdlog::info(
            "fault armed: primitive {} of the next action list fails between the cache "
            "and the mirror",
            primitive);
}

void Session::debug_desync_row(int layer, int row) {
    require_started("desync");
    state_->debug_desync_row(layer, row);
    drift_current_ = false;
    refresh_invariants();
    record_hashed(trace_, command::Desync{layer, row}.to_json(), tick_, state_hash());
}

// ---- shared steps -----------------------------------------------------------------------------

void Session::require_started(const char* command) const {
    if (!started_) throw SessionNotStarted(command);
}

// The state's invariants, then those of the proposer's bookkeeping (a selective policy's). Every
// change of the state ends here, so this is also where wLOD regenerates what the change made
// dirty, before its invariants are checked.
void Session::refresh_invariants() {
    std::vector<InvariantResult> results = state_->check_invariants();
    if (wlod_) {
        wlod_->regenerate(*state_);
        const std::vector<InvariantResult> w = wlod_->check_invariants(*state_);
        results.insert(results.end(), w.begin(), w.end());
    }
    const std::vector<InvariantResult> policy = proposer_->check_invariants(*state_);
    results.insert(results.end(), policy.begin(), policy.end());
    if (options_.guard_full) {
        const std::string difference =
            state_->incremental_difference(digest_form(options_.state_hash));
        results.push_back({"incremental_state", difference.empty(), -1, -1, difference});
    }
    // A policy's goal (focus keeps W_max) is no fault of the state under a policy without it.
    for (InvariantResult& r : results) policy_goal_not_applicable(r, proposer_->name());
    invariants_.record(results, tick_);
}

// Records made at or after `first_id` enter the cache at full brightness in every layer that
// holds them (ARCHITECTURE §2.1: a new row has not yet had the chance to be attended to).
void Session::light_new_records(int64_t first_id) {
    const Ledger& ledger = state_->ledger();
    for (int l = 0; l < state_->n_layers(); ++l) {
        // The new records, not the rows: a tick adds a few records to a layer of 100,000 rows.
        std::vector<int64_t> ids;
        for (int64_t id = first_id; id < ledger.size(); ++id)
            if (ledger.at(id).status[size_t(l)] == RowStatus::Live) ids.push_back(id);
        state_->set_brightness(l, ids, std::vector<float>(ids.size(), options_.brightness.initial));
    }
}

void Session::note_result(const TickResult& result, const ActionList& given) {
    last_result_ = result;
    last_actions_ = order_for_application(given);
    last_given_index_ = application_order(given);
    drift_current_ = false;
    if (result.rejected) {
        last_error_ = "rejected:";
        for (const ValidationError& e : result.rejections) last_error_ += " [" + e.message + "]";
    } else if (result.aborted) {
        last_error_ = "aborted in " + result.failed_primitive + ": " + result.abort_reason +
                      " (cache rebuilt from the mirror)";
    } else {
        last_error_.clear();
    }
    refresh_invariants();
}

}  // namespace kvw
