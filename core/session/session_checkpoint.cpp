// Exact copies of a session (ARCHITECTURE §16): Session::clone, the checkpoints a session keeps
// every few ticks, and the store that picks the one to start a replay from.
#include "core/session/session_checkpoint.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "core/backend/backend_registry.h"
#include "core/model/available_memory.h"
#include "core/session/session.h"

namespace kvw {

Session::Session(const Session& other, bool with_engine, const Session* earlier)
    : options_(other.options_),
      model_(other.model_),
      backend_(with_engine ? create_backend(options_.backend) : nullptr),
      engine_context_(other.engine_context_),
      engine_(with_engine ? std::make_unique<Transformer>(model_, *backend_, engine_context_)
                          : nullptr),
      state_(std::make_unique<StateManager>(*other.state_, engine_.get(),
                                            earlier ? earlier->state_.get() : nullptr)),
      proposer_(other.proposer_->clone()),
      wlod_(other.wlod_ ? std::make_unique<WlodContext>(*other.wlod_) : nullptr),
      gist_net_(other.gist_net_),
      sampler_(other.sampler_),
      invariants_(other.invariants_),
      started_(other.started_),
      prompt_(other.prompt_),
      tick_(other.tick_),
      injected_(other.injected_),
      armed_fault_(other.armed_fault_),
      last_actions_(other.last_actions_),
      last_given_index_(other.last_given_index_),
      last_result_(other.last_result_),
      last_error_(other.last_error_),
      timings_(other.timings_),
      summed_timings_(other.summed_timings_),
      timed_ticks_(other.timed_ticks_),
      drift_(other.drift_),
      drift_current_(other.drift_current_) {
    checkpoints_.set_options(other.checkpoints_.options());
}

std::unique_ptr<Session> Session::clone() const {
    std::unique_ptr<Session> copy(new Session(*this, true));
    copy->trace_ = trace_;
    copy->checkpoints_ = checkpoints_;
    return copy;
}

void Session::set_checkpoint_options(const CheckpointOptions& options) {
    checkpoints_.set_options(options);
}

uint64_t default_checkpoint_budget() {
    // Read once: every session of the process gets the same budget, whatever it loads later.
    static const uint64_t budget = std::max(uint64_t(256) << 20, available_memory_bytes() / 8);
    return budget;
}

// ---- SessionCheckpoint ------------------------------------------------------------------------

namespace {

// What a dormant copy holds alone (its cache but the frozen slab blocks, its last logits and
// attention mass), roughly: its ledger's chunks and its cache's and maps' blocks are counted by
// the store, each once (SessionCheckpoint::for_each_shared_block).
uint64_t own_estimated_bytes(const StateManager& state) {
    uint64_t bytes = state.cache().bytes();
    state.cache().for_each_frozen_block([&](const void*, uint64_t block) { bytes -= block; });
    for (const std::vector<float>& mass : state.last_attention_mass())
        bytes += mass.size() * sizeof(float);
    return bytes + state.last_logits().size() * sizeof(float);
}

uint64_t estimated_bytes(const std::vector<LedgerEntry>& records, int n_layers) {
    uint64_t bytes = 0;
    for (const LedgerEntry& e : records)
        bytes += sizeof(LedgerEntry) + e.piece.size() +
                 uint64_t(n_layers) * (sizeof(RowStatus) + sizeof(Removal));
    return bytes;
}

}  // namespace

SessionCheckpoint::SessionCheckpoint(const Session& session, const SessionCheckpoint* earlier)
    : dormant_(new Session(session, false, earlier ? earlier->dormant_.get() : nullptr)),
      events_(session.trace().events().size()),
      prefix_hash_(session.trace().prefix_hash(events_)),
      tick_(session.tick()),
      own_bytes_(own_estimated_bytes(dormant_->state())) {}

SessionCheckpoint::~SessionCheckpoint() = default;

const Ledger& SessionCheckpoint::ledger() const { return dormant_->state().ledger(); }

void SessionCheckpoint::for_each_shared_block(
    const std::function<void(const void*, uint64_t)>& f) const {
    dormant_->state().cache().for_each_frozen_block(f);
    dormant_->state().layer_maps().for_each_frozen_block(f);
}

const KvLayout& SessionCheckpoint::cache() const { return dormant_->state().cache(); }

bool SessionCheckpoint::serves(const Trace& trace, size_t events) const {
    return events_ <= events && events <= trace.events().size() &&
           trace.prefix_hash(events_) == prefix_hash_;
}

std::unique_ptr<Session> SessionCheckpoint::restore(const Trace& trace) const {
    if (!serves(trace, events_))
        throw std::logic_error(
            "SessionCheckpoint::restore: the trace does not begin with the "
            "checkpoint's events");
    std::unique_ptr<Session> session(new Session(*dormant_, true));
    session->trace_ = trace.prefix(events_);
    return session;
}

// ---- CheckpointStore --------------------------------------------------------------------------

void CheckpointStore::set_options(const CheckpointOptions& options) {
    options_ = options;
    spacing_ = std::max(options.every, 0);
    if (spacing_ == 0) drop_if([](const SessionCheckpoint&) { return true; });
    enforce_budget();
}

void CheckpointStore::after_tick(const Session& session) {
    if (spacing_ == 0 || session.tick() % spacing_ != 0) return;
    kept_.push_back(std::make_shared<const SessionCheckpoint>(
        session, kept_.empty() ? nullptr : kept_.back().get()));
    count(*kept_.back(), 1);
    enforce_budget();
}

// Every second checkpoint goes (those off the doubled spacing) until they fit; the spacing
// stays a power-of-two multiple of the option, so the kept ones are evenly spread over the run.
void CheckpointStore::enforce_budget() {
    while (!kept_.empty() &&
           (kept_.size() > options_.max_kept || bytes() > options_.budget_bytes)) {
        const size_t before = kept_.size();
        spacing_ *= 2;
        drop_if([&](const SessionCheckpoint& c) { return c.tick() % spacing_ != 0; });
        if (kept_.size() == before) {  // they all sit on the spacing: the oldest goes
            const SessionCheckpoint* oldest = kept_.front().get();
            drop_if([&](const SessionCheckpoint& c) { return &c == oldest; });
        }
        spdlog::debug(
            "checkpoints: over the budget of {} bytes or {} kept, every {} ticks now ({} kept)",
            options_.budget_bytes, options_.max_kept, spacing_, kept_.size());
    }
}

std::shared_ptr<const SessionCheckpoint> CheckpointStore::nearest(const Trace& trace,
                                                                  size_t events) const {
    for (auto c = kept_.rbegin(); c != kept_.rend(); ++c)
        if ((*c)->serves(trace, events)) return *c;
    return nullptr;
}

void CheckpointStore::keep_serving(const Trace& trace, size_t events) {
    drop_if([&](const SessionCheckpoint& c) { return !c.serves(trace, events); });
}

void CheckpointStore::drop_if(const std::function<bool(const SessionCheckpoint&)>& drop) {
    std::erase_if(kept_, [&](const auto& c) {
        if (!drop(*c)) return false;
        count(*c, -1);
        return true;
    });
}

void CheckpointStore::count(const SessionCheckpoint& checkpoint, int copies) {
    // A piece's bytes are measured when the first checkpoint holding it comes, and that
    // figure leaves with the last one: the pieces are not changed while shared.
    const auto piece = [&](const void* address, const auto& measure) {
        if (copies > 0) {
            Piece& p = pieces_[address];
            if (p.copies++ == 0) bytes_ += (p.bytes = measure());
            return;
        }
        const auto p = pieces_.find(address);
        if (--p->second.copies > 0) return;
        bytes_ -= p->second.bytes;
        pieces_.erase(p);
    };
    if (copies > 0)
        bytes_ += checkpoint.own_bytes();
    else
        bytes_ -= checkpoint.own_bytes();
    const Ledger& ledger = checkpoint.ledger();
    for (const auto& chunk : ledger.record_chunks())
        piece(chunk.get(), [&] { return estimated_bytes(*chunk, ledger.n_layers()); });
    for (int l = 0; l < ledger.n_layers(); ++l)
        for (const auto& chunk : ledger.brightness_chunks(l))
            piece(chunk.get(), [&] { return uint64_t(chunk->size() * sizeof(float)); });
    checkpoint.for_each_shared_block(
        [&](const void* block, uint64_t bytes) { piece(block, [bytes] { return bytes; }); });
}

}  // namespace kvw
