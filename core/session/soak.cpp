#include "core/session/soak.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>

#include "core/model/model_loader.h"
#include "core/session/session_error.h"
#include "core/session/soak_actions.h"
#include "core/session/soak_systems.h"
#include "core/state/action_json.h"

namespace kvw {
namespace {

constexpr const char* kSoakPrompts[] = {
    "The cache remembers what the model was told", "Once upon a time there was a ledger",
    "a b c d e f g h i j", "The quick brown fox jumps over the lazy dog"};

// A list for a failure message, cut short: an invalid list may carry a capacity's worth of
// tokens.
std::string shown(const ActionList& list) {
    std::string text = to_json(list);
    return text.size() <= 300 ? text : text.substr(0, 300) + "...";
}

// A field of /proc/self/status in bytes ("VmRSS", "VmHWM"); 0 where it is missing.
uint64_t status_bytes(const std::string& key) {
    std::ifstream status("/proc/self/status");
    std::string name;
    uint64_t kib = 0;
    while (status >> name) {
        if (name == key + ":" && status >> kib) return kib * 1024;
        status.ignore(1 << 12, '\n');
    }
    return 0;
}

void add(SoakCounts& total, const SoakCounts& c) {
    total.ticks += c.ticks;
    total.valid_lists += c.valid_lists;
    total.rejected_lists += c.rejected_lists;
    total.rebuilds += c.rebuilds;
    total.drift_checks += c.drift_checks;
    total.layout_switches += c.layout_switches;
    total.policy_changes += c.policy_changes;
    total.restarts += c.restarts;
    total.sessions += c.sessions;
    total.systems_sessions += c.systems_sessions;
    total.refusals += c.refusals;
    total.kv_type_changes += c.kv_type_changes;
    total.backend_switches += c.backend_switches;
    total.wlod_changes += c.wlod_changes;
    total.collapses += c.collapses;
    total.history += c.history;
    total.forks += c.forks;
    total.replays += c.replays;
}

// Whether every layer's mirror is the same list of records at the same phases. Where layers
// differ, no single forward pass reproduces them all: a row appended then is computed from
// another layer's context than the reference pass for its own layer uses, so its drift is
// expected, not a fault.
bool layers_agree(const StateManager& s) {
    for (int l = 1; l < s.n_layers(); ++l)
        if (s.layer_map(l).pos2ledger != s.layer_map(0).pos2ledger ||
            s.layer_map(l).rope_pos != s.layer_map(0).rope_pos)
            return false;
    return true;
}

bool has_edits(const ActionList& list) {
    return std::any_of(list.begin(), list.end(),
                       [](const Action& a) { return !std::holds_alternative<AddAction>(a.op); });
}

}  // namespace

uint64_t resident_bytes() { return status_bytes("VmRSS"); }
uint64_t peak_resident_bytes() { return status_bytes("VmHWM"); }

Soak::Soak(SoakOptions options, std::shared_ptr<const Model> model)
    : options_(std::move(options)), model_(std::move(model)), rng_(options_.seed) {
    // Room for the longest prompt (one token per byte with a byte-level vocabulary) and for
    // the eight rows step() deletes from a layer close to the capacity.
    if (options_.capacity != 0 && options_.capacity < kMinCapacity)
        throw std::invalid_argument("soak: capacity " + std::to_string(options_.capacity) +
                                    " is below the " + std::to_string(kMinCapacity) +
                                    " rows a soak needs");
    SessionOptions o;
    o.model = options_.model;
    o.backend = options_.backend;
    o.capacity = options_.capacity;
    o.sampling.temperature = 0.8f;  // sampled, so that the runs differ with the seed
    o.sampling.top_p = 0.95f;
    o.sampling.seed = rng_();
    session_ = std::make_unique<Session>(o, model_);
    ++counts_.sessions;
    restart();
}

void Soak::restart() {
    const char* prompt = kSoakPrompts[uniform(rng_, 0, int(std::size(kSoakPrompts)) - 1)];
    session_->start(prompt);
    reference_.tokens.assign(size_t(session_->state().n_layers()),
                             model_->tokenizer.encode(prompt, true));
    reference_.capacity = session_->state().cache().capacity();
    reference_.vocab_size = model_->config.vocab_size;
    reference_.bos_id = model_->tokenizer.bos_id();
    ledger_.reset();  // a new prompt starts a new ledger
    ledger_.remember(session_->state().ledger());
    clean_ = true;
}

bool Soak::fail(std::string what) {
    failure_ = "session tick " + std::to_string(session_->tick()) + ": " + std::move(what);
    return false;
}

bool Soak::step() {
    // Keep every layer clear of the capacity, so that valid lists and ticks have room: delete
    // eight rows of each layer that comes close.
    ActionList shrink;
    for (int l = 0; l < int(reference_.tokens.size()); ++l)
        if (reference_.rows(l) + 12 > reference_.capacity)
            for (int pos = 1; pos <= 8; ++pos) shrink.push_back(Action{DeleteAction{pos}, {l}});
    if (!shrink.empty() && !apply_now(shrink)) return false;

    const int op = uniform(rng_, 0, 99);
    bool ok = true;
    if (op < 35) {
        ok = tick({});
    } else if (op < 50) {
        ok = tick(valid_actions(rng_, reference_, 4, 2, false));
    } else if (op < 60) {
        ok = refuse(invalid_actions(rng_, reference_), true);
    } else if (op < 70) {
        ok = apply_now(valid_actions(rng_, reference_, 4, 2, true));
    } else if (op < 80) {
        ok = refuse(invalid_actions(rng_, reference_), false);
    } else if (op < 85) {
        ok = rebuild_and_check_drift();
    } else if (op < 90) {
        ok = check_drift();
    } else if (op < 94) {
        ok = switch_layout();
    } else if (op < 98) {
        ok = change_policy();
    } else {
        restart();
        ++counts_.restarts;
    }
    if (!ok) return false;
    if (std::string problem = check(); !problem.empty()) return fail(std::move(problem));
    ledger_.remember(session_->state().ledger());
    return true;
}

bool Soak::tick(const ActionList& injected) {
    if (!injected.empty()) {
        try {
            session_->inject(injected);
        } catch (const ActionsRejected& e) {
            return fail(std::string("a valid list was refused: ") + e.what() + " " +
                        shown(injected));
        }
    }
    const TickResult r = session_->step();
    if (r.rejected || r.aborted)
        return fail(std::string("a tick was ") + (r.rejected ? "rejected: " : "aborted: ") +
                    (r.rejected ? r.rejections.front().message : r.abort_reason) + " " +
                    shown(injected));
    apply_to_reference(reference_, injected);
    // Step 4's own add: the sampled token after every edit, in every layer. Sampling is the
    // session's; where the token lands is checked against the reference.
    const int32_t sampled = session_->state().tokens(0).back();
    for (std::vector<int32_t>& layer : reference_.tokens) layer.push_back(sampled);
    clean_ = clean_ && !has_edits(injected) && layers_agree(session_->state());
    ++counts_.ticks;
    if (!injected.empty()) ++counts_.valid_lists;
    return true;
}

bool Soak::apply_now(const ActionList& list) {
    const TickResult r = session_->apply_now(list);
    if (r.rejected || r.aborted)
        return fail(std::string("a valid list was ") + (r.rejected ? "rejected: " : "aborted: ") +
                    (r.rejected ? r.rejections.front().message : r.abort_reason) + " " +
                    shown(list));
    apply_to_reference(reference_, list);
    clean_ = clean_ && !has_edits(list) && layers_agree(session_->state());
    ++counts_.valid_lists;
    return true;
}

bool Soak::refuse(const ActionList& list, bool by_inject) {
    const uint64_t hash = session_->state_hash();
    const int64_t records = session_->state().ledger().size();
    bool typed = false;
    if (by_inject) {
        try {
            session_->inject(list);
        } catch (const ActionsRejected& e) {
            typed = !e.errors().empty();
        }
    } else {
        const TickResult r = session_->apply_now(list);
        if (r.aborted) return fail("an invalid list got past pre-flight: " + r.abort_reason);
        typed = r.rejected && !r.rejections.empty();
    }
    if (!typed) return fail("an invalid list was not refused: " + shown(list));
    if (session_->state_hash() != hash) return fail("a refused list changed the state");
    if (session_->state().ledger().size() != records)
        return fail("a refused list added ledger records");
    ++counts_.rejected_lists;
    return true;
}

bool Soak::rebuild_and_check_drift() {
    session_->rebuild();
    ++counts_.rebuilds;
    clean_ = true;
    return check_drift();
}

bool Soak::check_drift() {
    const DriftReport& d = session_->measure_drift();
    ++counts_.drift_checks;
    if (clean_ && d.first_diverging_layer >= 0) {
        const LayerDrift& layer = d.layers[size_t(d.first_diverging_layer)];
        return fail("drift with no edit since the last full computation: layer " +
                    std::to_string(d.first_diverging_layer) + " row " +
                    std::to_string(layer.first_stale_row));
    }
    return true;
}

bool Soak::switch_layout() {
    constexpr CacheLayout kLayouts[] = {CacheLayout::Contiguous, CacheLayout::BatchSplice,
                                        CacheLayout::Indirection};
    const CacheLayout now = session_->state().cache().layout();
    CacheLayout next = now;
    while (next == now) next = kLayouts[uniform(rng_, 0, 2)];
    const uint64_t hash = session_->state_hash();
    session_->set_layout(next);
    ++counts_.layout_switches;
    if (session_->state().cache().layout() != next) return fail("the layout did not change");
    if (session_->state_hash() != hash)
        return fail(std::string("switching to ") + cache_layout_name(next) +
                    " changed the state hash");
    return true;
}

bool Soak::change_policy() {
    constexpr RopePolicy kPolicies[] = {RopePolicy::FinalIndex, RopePolicy::Reindex,
                                        RopePolicy::Original};
    const RopePolicy now = session_->state().policy();
    RopePolicy next = now;
    while (next == now) next = kPolicies[uniform(rng_, 0, 2)];
    session_->set_rope_policy(next);  // rebuilds: every row is computed afresh
    ++counts_.policy_changes;
    clean_ = true;
    return true;
}

std::string Soak::check() const {
    const StateManager& s = session_->state();
    if (std::string problem = first_state_fault(s); !problem.empty()) return problem;
    for (int l = 0; l < s.n_layers(); ++l) {
        const std::vector<int32_t> held = s.tokens(l);
        const std::vector<int32_t>& expected = reference_.tokens[size_t(l)];
        if (held != expected) {
            const auto diff =
                std::mismatch(held.begin(), held.end(), expected.begin(), expected.end());
            return "layer " + std::to_string(l) + " holds " + std::to_string(held.size()) +
                   " rows, the reference " + std::to_string(expected.size()) +
                   "; first difference at row " + std::to_string(diff.first - held.begin());
        }
    }
    return ledger_.check(s.ledger());
}

uint64_t checkpoint_bound(const Session& session) {
    constexpr uint64_t per_record = 1024;
    const CheckpointStore& kept = session.checkpoints();
    const uint64_t per_copy =
        2 * session.state().cache().bytes() + 2 * uint64_t(Ledger::kChunkRecords) * per_record;
    return uint64_t(session.state().ledger().size()) * per_record + kept.size() * per_copy;
}

namespace {

// Within a session, the memory its own bookkeeping holds: RSS only says something between
// sessions (the trace and the ledger grow by design).
std::string check_memory(const Session& session, SoakReport& report) {
    const uint64_t held = session.checkpoints().bytes();
    report.peak_checkpoint_bytes = std::max(report.peak_checkpoint_bytes, held);
    const uint64_t bound = checkpoint_bound(session);
    if (held <= bound) return {};
    return "the checkpoints hold " + std::to_string(held) + " bytes at tick " +
           std::to_string(session.tick()) + ", over the bound of " + std::to_string(bound) + " (" +
           std::to_string(session.checkpoints().size()) + " kept, " +
           std::to_string(session.state().ledger().size()) + " ledger records)";
}

}  // namespace

namespace {

// Steps one session's soak (Soak or SystemsSoak) to `target` ticks, checking its checkpoints'
// memory every options.memory_check_ticks; the first failure goes into `report`.
template <typename SessionSoak>
void run_session(SessionSoak& soak, int64_t target, const SoakOptions& options,
                 SoakReport& report) {
    int64_t checked_at = 0;
    while (soak.counts().ticks < target) {
        if (!soak.step()) {
            report.failure = soak.failure();
            break;
        }
        if (options.memory_check_ticks <= 0 ||
            soak.counts().ticks < checked_at + options.memory_check_ticks)
            continue;
        checked_at = soak.counts().ticks;
        report.failure = check_memory(soak.session(), report);
        if (!report.ok()) break;
    }
    if (!report.ok()) report.failed_tick = report.counts.ticks + soak.counts().ticks;
}

}  // namespace

SoakReport run_soak(const SoakOptions& options,
                    const std::function<void(const SoakReport&)>& progress) {
    const auto start = std::chrono::steady_clock::now();
    const std::shared_ptr<const Model> model = load_model(options.model);
    const int64_t segment = options.segment_ticks > 0
                                ? options.segment_ticks
                                : std::clamp(options.ticks / 5, int64_t(50), int64_t(2000));
    SoakReport report;
    std::seed_seq seeds{uint32_t(options.seed), uint32_t(options.seed >> 32)};
    std::mt19937_64 session_seeds(seeds);
    while (report.counts.ticks < options.ticks && report.ok()) {
        SoakOptions o = options;
        o.seed = session_seeds();
        const int64_t target = std::min(options.ticks - report.counts.ticks, segment);
        if (options.systems && report.counts.sessions % 2 == 1) {
            SystemsSoak soak(o, model);
            run_session(soak, target, options, report);
            if (report.ok() && !soak.finish()) {
                report.failure = soak.failure();
                report.failed_tick = report.counts.ticks + soak.counts().ticks;
            }
            if (!report.ok()) {
                report.failure = soak.configuration() + ": " + report.failure;
                if (!options.failure_trace.empty())
                    soak.session().trace().write(options.failure_trace);
            }
            add(report.counts, soak.counts());
        } else {
            Soak soak(o, model);
            run_session(soak, target, options, report);
            if (report.ok()) {
                report.failure = own_trace_replay_difference(soak.session());
                if (!report.ok())
                    report.failed_tick = report.counts.ticks + soak.counts().ticks;
                else
                    ++report.counts.replays;
            }
            if (!report.ok() && !options.failure_trace.empty())
                soak.session().trace().write(options.failure_trace);
            add(report.counts, soak.counts());
        }
        // The session is gone: what is left is the model and whatever leaked.
        report.rss_last = resident_bytes();
        if (report.counts.sessions == 1)
            report.rss_after_warmup = report.rss_last;
        else if (report.ok() && report.rss_last > report.rss_after_warmup + options.rss_slack_bytes)
            report.failure =
                "resident memory grew from " + std::to_string(report.rss_after_warmup >> 20) +
                " MiB after the first session to " + std::to_string(report.rss_last >> 20) + " MiB";
        report.peak_rss = peak_resident_bytes();
        report.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (progress) progress(report);
    }
    return report;
}

}  // namespace kvw
