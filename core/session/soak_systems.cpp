#include "core/session/soak_systems.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <exception>

#include "core/backend/backend_registry.h"
#include "core/cache/cache_layout.h"
#include "core/cache/kv_storage.h"
#include "core/cache/ring_options.h"
#include "core/policy/policy_table.h"
#include "core/session/option_conflicts.h"
#include "core/session/replay.h"
#include "core/session/session_error.h"
#include "core/session/soak_actions.h"
#include "core/state/rope_policy.h"

namespace kvw {
namespace {

constexpr const char* kSystemsPrompts[] = {"The cache remembers what the model was told",
                                           "In the beginning God created the heaven and the earth",
                                           "a b c d e f g h i j k l m n o p"};
// The rows a layer keeps free below the capacity before the soak starts a new prompt: a tick
// and an edit list of the largest size valid_actions() makes fit.
constexpr int kHeadroom = 12;

bool coin(std::mt19937_64& rng, double p = 0.5) { return std::bernoulli_distribution(p)(rng); }

// A value of an enum's name table (core/names/enum_names.h).
template <typename T, size_t N>
T pick(std::mt19937_64& rng, const EnumName<T> (&table)[N]) {
    return table[size_t(uniform(rng, 0, int(N) - 1))].value;
}

PolicyBudget random_budget(std::mt19937_64& rng) {
    return {uniform(rng, 1, 4), uniform(rng, 2, 24), uniform(rng, 2, 24)};
}

RingOptions random_ring(std::mt19937_64& rng) {
    RingOptions ring;
    ring.mode = pick(rng, kRingModeNames);
    ring.sinks = uniform(rng, 0, 4);
    ring.tokens_per_block = coin(rng, 0.2) ? 2 : 1;
    ring.checksum = coin(rng);
    return ring;
}

// "ring pointer (2 sinks, 1 a frame, checksum)", "indirection".
std::string layout_text(CacheLayout layout, const RingOptions& ring) {
    std::string text = cache_layout_name(layout);
    if (layout != CacheLayout::Ring) return text;
    return text + " " + ring_mode_name(ring.mode) + " (" + std::to_string(ring.sinks) + " sinks, " +
           std::to_string(ring.tokens_per_block) + " a frame" +
           (ring.checksum ? ", checksum)" : ")");
}

std::string describe(const SessionOptions& o) {
    std::string text = o.proposer;
    if (const PolicyInfo* info = find_policy(o.proposer); info && info->selective)
        text += " S " + std::to_string(o.policy.budget.sink) + " B " +
                std::to_string(o.policy.budget.budget) + " W " +
                std::to_string(o.policy.budget.window);
    text += " · " + layout_text(o.layout, o.ring) + " · K " + kv_type_name(o.k_type) + " V " +
            kv_type_name(o.v_type) + " · RoPE " + rope_policy_name(o.rope_policy);
    if (o.wlod_k > 0)
        text += " · wLOD K " + std::to_string(o.wlod_k) + " W_max " + std::to_string(o.wlod_max) +
                (o.gist_net.empty() ? " mean pool" : " gist net");
    text += o.sampling.temperature > 0 ? " · temperature " + std::to_string(o.sampling.temperature)
                                       : " · greedy";
    return text;
}

// The reference view valid_actions() draws edit lists from, read from the session itself:
// here the lists are not checked against a reference, only that each runs or is refused.
SoakSequence sequence_of(const Session& session, const Model& model) {
    SoakSequence seq;
    const StateManager& s = session.state();
    for (int l = 0; l < s.n_layers(); ++l) seq.tokens.push_back(s.tokens(l));
    seq.capacity = int(s.cache().capacity());
    seq.vocab_size = model.config.vocab_size;
    seq.bos_id = model.tokenizer.bos_id();
    return seq;
}

}  // namespace

SystemsSoak::SystemsSoak(const SoakOptions& options, std::shared_ptr<const Model> model)
    : options_(options), model_(std::move(model)), rng_(options.seed) {
    ++counts_.sessions;
    ++counts_.systems_sessions;
    // Draw until a combination the session takes: the ones it refuses (a ring smaller than the
    // budget, focus without wLOD, ...) are refused up front, which is what the soak checks.
    for (int attempt = 0; !session_; ++attempt) {
        SessionOptions o;
        o.model = options_.model;
        o.backend = options_.backend;
        o.capacity = options_.capacity;
        std::vector<std::string_view> policies;
        for (const PolicyInfo& p : policy_table())
            if (p.name != "smartkv" || !options_.gate.empty()) policies.push_back(p.name);
        o.proposer = std::string(policies[size_t(uniform(rng_, 0, int(policies.size()) - 1))]);
        o.policy.budget = random_budget(rng_);
        o.policy.seed = rng_();
        if (o.proposer == "smartkv") o.policy.gate = options_.gate;
        o.layout = coin(rng_) ? CacheLayout::Ring : pick(rng_, kCacheLayoutNames);
        if (o.layout == CacheLayout::Ring) o.ring = random_ring(rng_);
        o.k_type = pick(rng_, kKvTypeNames);
        o.v_type = pick(rng_, kKvTypeNames);
        o.rope_policy = pick(rng_, kRopePolicyNames);
        if (coin(rng_, 0.4) || o.proposer == "focus") {
            const bool learned = !options_.gist_net.empty() && coin(rng_);
            o.wlod_k = learned ? 4 : uniform(rng_, 2, 4);  // the test gist net is made for K 4
            if (learned) o.gist_net = options_.gist_net;
            o.wlod_max = coin(rng_) ? 0 : uniform(rng_, 24, 64);
        }
        o.sampling.temperature = coin(rng_) ? 0.0f : float(uniform(rng_, 5, 12)) / 10.0f;
        o.sampling.top_p = 0.95f;
        o.sampling.seed = rng_();
        configuration_ = describe(o);
        try {
            auto session = std::make_unique<Session>(o, model_);
            session->start(kSystemsPrompts[uniform(rng_, 0, int(std::size(kSystemsPrompts)) - 1)]);
            session_ = std::move(session);
        } catch (const std::exception& e) {
            ++counts_.refusals;
            if (attempt == 50)
                throw std::runtime_error("soak: fifty drawn sessions refused, the last (" +
                                         configuration_ + "): " + e.what());
        }
    }
    watch_new_ledger();
}

SystemsSoak::Mark SystemsSoak::mark() const {
    return {session_->state_hash(), session_->trace().events().size(),
            int64_t(session_->state().ledger().size())};
}

bool SystemsSoak::fail(std::string what) {
    failure_ = "session tick " + std::to_string(session_->tick()) + ": " + std::move(what);
    return false;
}

template <typename Command>
bool SystemsSoak::attempt(const char* what, Command&& command, int64_t& count) {
    const Mark before = mark();
    try {
        command();
    } catch (const std::exception& e) {
        const Mark after = mark();
        if (after.hash != before.hash || after.events != before.events ||
            after.records != before.records)
            return fail(std::string(what) + " was refused (" + e.what() +
                        ") but changed the session");
        ++counts_.refusals;
        return true;
    }
    ++count;
    return true;
}

bool SystemsSoak::step() {
    // A layer close to its capacity: a new prompt, so that ticks and edits have room (a ring
    // overwrites its own rows, selective policies and wLOD's focus keep theirs down).
    // Undo may also have gone back before the prompt.
    const StateManager& s = session_->state();
    bool restart = !session_->started();
    for (int l = 0; l < s.n_layers(); ++l)
        restart = restart || (s.rows(l) + kHeadroom > s.cache().capacity() &&
                              s.cache().layout() != CacheLayout::Ring);
    if (restart) {
        session_->start(kSystemsPrompts[uniform(rng_, 0, int(std::size(kSystemsPrompts)) - 1)]);
        ++counts_.restarts;
        watch_new_ledger();
    }

    const int op = uniform(rng_, 0, 99);
    bool ok = true;
    // Commands that may be refused say so through attempt(); anything else thrown is a fault.
    try {
        if (op < 45)
            ok = tick();
        else if (op < 53)
            ok = edit();
        else if (op < 59)
            ok = collapse_or_expand();
        else if (op < 63)
            ok = change_kv_types();
        else if (op < 67)
            ok = change_layout();
        else if (op < 71)
            ok = change_policy();
        else if (op < 75)
            ok = change_wlod();
        else if (op < 77)
            ok = change_gist_net();
        else if (op < 85)
            ok = undo_or_redo();
        else if (op < 90)
            ok = snapshot_or_restore();
        else if (op < 94)
            ok = fork_at_past_tick();
        else if (op < 96)
            ok = change_backend();
        else
            ok = rebuild_or_drift();
    } catch (const std::exception& e) {
        return fail(std::string("command ") + std::to_string(op) + " threw: " + e.what());
    }
    if (!ok) return false;
    if (std::string problem = check(); !problem.empty()) return fail(std::move(problem));
    ledger_.remember(session_->state().ledger());
    return true;
}

bool SystemsSoak::tick() {
    const TickResult r = session_->step();
    if (r.rejected || r.aborted)
        return fail(std::string("a tick was ") + (r.rejected ? "rejected: " : "aborted: ") +
                    (r.rejected ? r.rejections.front().message : r.abort_reason));
    ++counts_.ticks;
    return true;
}

bool SystemsSoak::edit() {
    const ActionList list = valid_actions(rng_, sequence_of(*session_, *model_), 4, 2, false);
    if (list.empty()) return true;
    return apply_now("an edit list", list, counts_.valid_lists);
}

bool SystemsSoak::apply_now(const char* what, const ActionList& list, int64_t& count) {
    const Mark before = mark();
    TickResult r;
    try {
        r = session_->apply_now(list);
    } catch (const OptionConflict& e) {  // a collapse under a policy that edits rows
        if (mark().hash != before.hash || mark().events != before.events)
            return fail(std::string(what) + " refused (" + e.what() + ") changed the session");
        ++counts_.refusals;
        return true;
    }
    if (r.rejected || r.aborted) {
        // Pre-flight, the layout or the policy may refuse a list (a ring's sinks, a block that
        // is not whole): nothing changed but the recorded refusal.
        if (session_->state_hash() != before.hash)
            return fail(std::string(what) + " " +
                        (r.rejected ? "rejected (" + r.rejections.front().message
                                    : "aborted (" + r.abort_reason) +
                        ") changed the state");
        ++counts_.refusals;
        return true;
    }
    ++count;
    return true;
}

bool SystemsSoak::collapse_or_expand() {
    const StateManager& s = session_->state();
    if (s.rows(0) < 2) return true;
    Action action;
    // Expand a gist row where layer 0 holds one; else collapse a block at a random row (most
    // are not aligned, and are refused).
    std::vector<int> gist_rows;
    const LayerMap& map = s.layer_map(0);
    for (int r = 0; r < map.rows(); ++r)
        if (s.gist(map.pos2ledger[size_t(r)])) gist_rows.push_back(r);
    if (!gist_rows.empty() && coin(rng_))
        action.op = ExpandAction{gist_rows[size_t(uniform(rng_, 0, int(gist_rows.size()) - 1))]};
    else {
        // A block boundary while no gist is before it (a row's token offset is its row then);
        // an offset past a gist is a guess the state may refuse.
        const int level = coin(rng_, 0.8) ? 1 : 2;
        const int k = std::max(1, s.wlod_k());
        const int span = level == 2 ? k * k : k;
        const int blocks = std::max(1, (s.rows(0) - 1) / span);
        action.op = CollapseAction{span * uniform(rng_, 1, blocks), level};
    }
    return apply_now("a collapse or expand", {action}, counts_.collapses);
}

bool SystemsSoak::change_kv_types() {
    const KvType k = pick(rng_, kKvTypeNames), v = pick(rng_, kKvTypeNames);
    return attempt(
        "a K/V type change", [&] { session_->set_kv_types(k, v); }, counts_.kv_type_changes);
}

bool SystemsSoak::change_layout() {
    const CacheLayout layout = pick(rng_, kCacheLayoutNames);
    const RingOptions ring = random_ring(rng_);
    return attempt(
        "a layout change", [&] { session_->set_layout(layout, ring); }, counts_.layout_switches);
}

bool SystemsSoak::change_policy() {
    if (coin(rng_)) {
        PolicyOptions o = session_->options().policy;
        o.budget = random_budget(rng_);
        return attempt(
            "a budget change", [&] { session_->set_policy_options(o); }, counts_.policy_changes);
    }
    const std::span<const PolicyInfo> table = policy_table();
    const std::string name(table[size_t(uniform(rng_, 0, int(table.size()) - 1))].name);
    return attempt(
        "a policy change", [&] { session_->set_proposer(name); }, counts_.policy_changes);
}

bool SystemsSoak::change_wlod() {
    const int k = coin(rng_, 0.3) ? 0 : uniform(rng_, 2, 4);
    const int64_t w_max = coin(rng_) ? 0 : uniform(rng_, 24, 64);
    return attempt(
        "a wLOD change", [&] { session_->set_wlod(k, w_max); }, counts_.wlod_changes);
}

bool SystemsSoak::change_gist_net() {
    const std::string path = coin(rng_) ? options_.gist_net : std::string();
    return attempt(
        "a gist net change", [&] { session_->set_gist_net(path); }, counts_.wlod_changes);
}

// The soak's own backend or a CPU kernel set this machine runs: the rows one computed stay
// while the next one runs (Session::set_backend), so later drift checks, rebuilds, undo and the
// final replay meet rows of two backends. Not `cpu:scalar`, the fallback for CPUs without AVX2:
// every forward after a switch to it took several times as long, which made the soak under the
// sanitizers the slowest test of CI; test_backend_switch covers switching to it.
bool SystemsSoak::change_backend() {
    std::vector<std::string> names{options_.backend};
    for (const std::string& name : backend_names()) {
        std::string why;
        if (name.starts_with("cpu") && !name.ends_with(":scalar") && name != options_.backend &&
            backend_available(name, why))
            names.push_back(name);
    }
    const std::string name = names[size_t(uniform(rng_, 0, int(names.size()) - 1))];
    return attempt(
        "a backend switch", [&] { session_->set_backend(name); }, counts_.backend_switches);
}

uint64_t SystemsSoak::recorded_hash(size_t events) const {
    const auto& all = session_->trace().events();
    // The header (event 0) names the hash function instead.
    if (events <= 1 || events > all.size()) return 0;
    const auto hash = all[events - 1].find("state_hash");
    if (hash == all[events - 1].end() || !hash->is_string()) return 0;
    const std::string& hex = hash->get_ref<const std::string&>();
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(hex.data(), hex.data() + hex.size(), value, 16);
    return error == std::errc() && end == hex.data() + hex.size() ? value : 0;
}

bool SystemsSoak::undo_or_redo() {
    const bool undo = session_->redo_depth() == 0 || coin(rng_, 0.6);
    const int depth = undo ? session_->undo_depth() : session_->redo_depth();
    if (depth == 0) return true;
    const int steps = uniform(rng_, 1, std::min(depth, 3));
    const size_t events = session_->trace().events().size();
    const uint64_t expected = undo ? recorded_hash(events - size_t(steps)) : 0;
    if (undo)
        session_->undo(steps);
    else
        session_->redo(steps);
    ++counts_.history;
    if (expected != 0 && session_->state_hash() != expected)
        return fail("undo " + std::to_string(steps) + " reached state hash " +
                    hash_hex(session_->state_hash()) + ", the trace recorded " +
                    hash_hex(expected) + " there");
    if (const uint64_t recorded = recorded_hash(session_->trace().events().size());
        !undo && recorded != 0 && session_->state_hash() != recorded)
        return fail("redo " + std::to_string(steps) + " left a state its trace does not record");
    watch_new_ledger();
    return true;
}

bool SystemsSoak::snapshot_or_restore() {
    if (snapshots_.empty() || coin(rng_, 0.4)) {
        const std::string name = "s" + std::to_string(snapshots_.size());
        session_->snapshot(name);
        snapshots_.push_back(name);
        ++counts_.history;
        return true;
    }
    const std::string& name = snapshots_[size_t(uniform(rng_, 0, int(snapshots_.size()) - 1))];
    session_->restore(name);
    ++counts_.history;
    // The restored trace ends where the snapshot was taken: its last event's recorded hash.
    const uint64_t expected = recorded_hash(session_->trace().events().size());
    if (expected != 0 && session_->state_hash() != expected)
        return fail("restore " + name + " reached state hash " + hash_hex(session_->state_hash()) +
                    ", its trace recorded " + hash_hex(expected));
    watch_new_ledger();
    return true;
}

bool SystemsSoak::fork_at_past_tick() {
    const int64_t at = uniform(rng_, 0, int(session_->tick()));
    const Mark before = mark();
    std::unique_ptr<Session> fork;
    try {
        fork = session_->fork(at);
    } catch (const HistoryError& e) {
        // A tick this sequence never reached as a tick of its own (a new prompt started later).
        if (e.kind() != HistoryErrorKind::NoSuchTick) return fail(std::string("fork: ") + e.what());
        ++counts_.refusals;
        return true;
    }
    if (mark().hash != before.hash) return fail("a fork changed the session it was made from");
    const Trace& trace = session_->trace();
    const uint64_t expected = recorded_hash(events_through_tick(trace, at));
    if (fork->tick() != at)
        return fail("a fork at tick " + std::to_string(at) + " is at tick " +
                    std::to_string(fork->tick()));
    if (expected != 0 && fork->state_hash() != expected)
        return fail("a fork at tick " + std::to_string(at) + " has state hash " +
                    hash_hex(fork->state_hash()) + ", the trace recorded " + hash_hex(expected));
    for (const InvariantResult& r : fork->state().check_invariants())
        if (!r.passed) return fail("a fork at tick " + std::to_string(at) + ": " + r.name);
    ++counts_.forks;
    return true;
}

bool SystemsSoak::rebuild_or_drift() {
    if (coin(rng_)) {
        session_->rebuild();
        ++counts_.rebuilds;
        return true;
    }
    const DriftReport& d = session_->measure_drift();
    ++counts_.drift_checks;
    for (size_t l = 0; l < d.layers.size(); ++l)
        for (const std::vector<float>* values : {&d.layers[l].k, &d.layers[l].v})
            for (float x : *values)
                if (!std::isfinite(x))
                    return fail("drift of layer " + std::to_string(l) + " is not finite");
    return true;
}

bool SystemsSoak::finish() {
    if (std::string difference = own_trace_replay_difference(*session_); !difference.empty())
        return fail(std::move(difference));
    ++counts_.replays;
    return true;
}

std::string SystemsSoak::check() const {
    const StateManager& s = session_->state();
    if (std::string problem = first_state_fault(s); !problem.empty()) return problem;
    return ledger_.check(s.ledger());
}

void SystemsSoak::watch_new_ledger() {
    ledger_.reset();
    ledger_.remember(session_->state().ledger());
}

}  // namespace kvw
