#include "core/policy/selective_policy.h"

#include <algorithm>
#include <numeric>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "core/state/state_manager.h"

namespace kvw {

SelectivePolicy::SelectivePolicy(std::string name, PolicyBudget budget,
                                 std::unique_ptr<RowScorer> scorer)
    : name_(std::move(name)), budget_(budget), scorer_(std::move(scorer)) {
    check_budget(budget_);
}

SelectivePolicy::SelectivePolicy(const SelectivePolicy& other)
    : name_(other.name_),
      budget_(other.budget_),
      scorer_(other.scorer_->clone()),
      generating_(other.generating_),
      layers_(other.layers_),
      scores_(other.scores_),
      newest_(other.newest_),
      planned_(other.planned_) {}

std::unique_ptr<Proposer> SelectivePolicy::clone() const {
    return std::unique_ptr<Proposer>(new SelectivePolicy(*this));
}

// Scores of a layer's rows: a static score is taken once and kept, a rescored one is asked for
// again. The keys of the rows scored are read together, kReadRows at a time (one read of the
// cache's device each), and only for a scorer that reads them.
void SelectivePolicy::take_scores(const StateManager& state, int layer, std::vector<int> rows) {
    const LayerMap& map = state.layer_map(layer);
    std::map<int64_t, float>& known = scores_[size_t(layer)];
    if (!scorer_->rescored())
        std::erase_if(rows, [&](int r) { return known.count(map.pos2ledger[size_t(r)]) > 0; });
    constexpr size_t kReadRows = 1024;
    const size_t kv_dim = size_t(state.cache().kv_dim());
    std::vector<float> keys;
    for (size_t at = 0; at < rows.size(); at += kReadRows) {
        const std::span<const int> some =
            std::span<const int>(rows).subspan(at, std::min(kReadRows, rows.size() - at));
        if (scorer_->reads_key()) {
            keys.resize(some.size() * kv_dim);
            state.cache().read_rows(layer, some, keys.data(), nullptr);  // decoded
        }
        for (size_t i = 0; i < some.size(); ++i) {
            const int r = some[i];
            const int64_t id = map.pos2ledger[size_t(r)];
            const std::span<const float> key = keys.empty()
                                                   ? std::span<const float>()
                                                   : std::span(keys).subspan(i * kv_dim, kv_dim);
            known[id] =
                scorer_->score(ScoredRow{layer, r, id, map.rope_pos[size_t(r)], key}, state);
        }
    }
}

float SelectivePolicy::score(const StateManager& state, int layer, int row) {
    take_scores(state, layer, {row});
    return scores_[size_t(layer)].at(state.layer_map(layer).pos2ledger[size_t(row)]);
}

// First S rows, last W of the rest, the top B of what lies between by (score, id).
void SelectivePolicy::bulk_prune(const StateManager& state, int layer, LayerSelection& s,
                                 std::vector<Eviction>& out) {
    const std::vector<int64_t>& ids = state.layer_map(layer).pos2ledger;
    const int n = int(ids.size());
    const int sinks = std::min(budget_.sink, n);
    const int window = std::min(budget_.window, n - sinks);
    s = LayerSelection{};
    s.seen = n;
    s.sinks.assign(ids.begin(), ids.begin() + sinks);
    s.window.assign(ids.end() - window, ids.end());
    std::vector<int> rows;
    for (int r = sinks; r < n - window; ++r) rows.push_back(r);
    take_scores(state, layer, rows);
    const std::map<int64_t, float>& known = scores_[size_t(layer)];
    std::vector<std::pair<float, int64_t>> middle;
    for (int r : rows) middle.emplace_back(known.at(ids[size_t(r)]), ids[size_t(r)]);
    std::sort(middle.begin(), middle.end());
    const size_t dropped = middle.size() - std::min(middle.size(), size_t(budget_.budget));
    for (size_t i = 0; i < dropped; ++i)
        out.push_back({middle[i].second, {RemovalReason::BulkPrune, middle[i].first}});
    s.high_value.assign(middle.begin() + ptrdiff_t(dropped), middle.end());
}

void SelectivePolicy::rescore(const StateManager& state, int layer, const RowOf& row_of,
                              LayerSelection& s) {
    std::vector<int> rows;
    for (const auto& entry : s.high_value) rows.push_back(row_of.at(entry.second));
    take_scores(state, layer, rows);
    for (auto& [sc, id] : s.high_value) sc = scores_[size_t(layer)].at(id);
    std::sort(s.high_value.begin(), s.high_value.end());
}

// Makes room in the window for the token this tick appends: the oldest window rows leave it
// and compete with the weakest high-value row (the seed's streaming prune). Ties in score go
// to the higher ledger id, the order the high-value list is sorted by.
void SelectivePolicy::stream(const StateManager& state, int layer, const RowOf& row_of,
                             LayerSelection& s, std::vector<Eviction>& out) {
    auto& hv = s.high_value;
    while (!s.window.empty() && int(s.window.size()) >= budget_.window) {
        const int64_t old = s.window.front();
        s.window.pop_front();
        const std::pair<float, int64_t> entry{score(state, layer, row_of.at(old)), old};
        if (int(hv.size()) < budget_.budget) {
            hv.insert(std::upper_bound(hv.begin(), hv.end(), entry), entry);
        } else if (budget_.budget == 0) {
            out.push_back({old, {RemovalReason::Window, entry.first}});
        } else if (hv.front() < entry) {
            out.push_back({hv.front().second, {RemovalReason::StreamingLoss, hv.front().first}});
            hv.erase(hv.begin());
            hv.insert(std::upper_bound(hv.begin(), hv.end(), entry), entry);
        } else {
            out.push_back({old, {RemovalReason::StreamingLoss, entry.first}});
        }
    }
}

ActionList SelectivePolicy::propose(const ProposerInput& input) {
    if (!input.state) return {};
    const StateManager& state = *input.state;
    std::vector<LayerSelection> plan = layers_;
    plan.resize(size_t(state.n_layers()));
    scores_.resize(size_t(state.n_layers()));
    ActionList deletes;
    for (int l = 0; l < state.n_layers(); ++l) {
        const std::vector<int64_t>& ids = state.layer_map(l).pos2ledger;
        RowOf row_of;
        for (int r = 0; r < int(ids.size()); ++r) row_of[ids[size_t(r)]] = r;
        LayerSelection& s = plan[size_t(l)];
        std::vector<Eviction> evicted;
        if (!generating_)
            bulk_prune(state, l, s, evicted);
        else if (scorer_->rescored())
            rescore(state, l, row_of, s);
        stream(state, l, row_of, s, evicted);
        for (const Eviction& e : evicted)
            deletes.push_back(Action{DeleteAction{row_of.at(e.id), e.cause}, {l}});
    }
    planned_ = std::move(plan);
    return deletes;
}

void SelectivePolicy::observe(const StateManager& state, bool appended) {
    scorer_->observe(state, appended);
    const size_t n = size_t(state.n_layers());
    layers_.resize(n);
    scores_.resize(n);
    newest_.resize(n, -1);
    // The plan stands when its tick appended; a rejected or aborted tick changed nothing.
    if (planned_ && appended) {
        layers_ = std::move(*planned_);
        generating_ = true;
    }
    planned_.reset();
    for (int l = 0; l < state.n_layers(); ++l) follow(state, l);
}

// Brings one layer's bookkeeping in line with its rows: ids gone from the rows leave it, new
// records (above the newest seen) join the sinks while fewer than S were seen, else the
// window; an older record it does not know (one whose planned delete was dropped) goes to the
// front of the window, so that the next tick's streaming prune rules on it.
void SelectivePolicy::follow(const StateManager& state, int layer) {
    const std::vector<int64_t>& ids = state.layer_map(layer).pos2ledger;
    const std::unordered_set<int64_t> live(ids.begin(), ids.end());
    std::map<int64_t, float>& known_scores = scores_[size_t(layer)];
    std::erase_if(known_scores, [&](const auto& kv) { return !live.count(kv.first); });
    const int64_t newest_before = newest_[size_t(layer)];
    for (int64_t id : ids) newest_[size_t(layer)] = std::max(newest_[size_t(layer)], id);
    if (generating_) {
        LayerSelection& s = layers_[size_t(layer)];
        const auto gone = [&](int64_t id) { return !live.count(id); };
        std::erase_if(s.sinks, gone);
        std::erase_if(s.window, gone);
        std::erase_if(s.high_value, [&](const auto& e) { return gone(e.second); });
        std::unordered_set<int64_t> held(s.sinks.begin(), s.sinks.end());
        held.insert(s.window.begin(), s.window.end());
        for (const auto& e : s.high_value) held.insert(e.second);
        std::deque<int64_t> strays;
        for (int64_t id : ids) {
            if (held.count(id)) continue;
            if (id <= newest_before) {
                strays.push_back(id);
            } else if (s.seen++ < budget_.sink) {
                s.sinks.push_back(id);
            } else {
                s.window.push_back(id);
            }
        }
        s.window.insert(s.window.begin(), strays.begin(), strays.end());
    }
    if (!scorer_->rescored()) {  // a static score is taken as the row enters the layer
        std::vector<int> rows(ids.size());
        std::iota(rows.begin(), rows.end(), 0);
        take_scores(state, layer, std::move(rows));
    }
}

std::vector<InvariantResult> SelectivePolicy::check_invariants(const StateManager& state) const {
    std::vector<InvariantResult> out;
    for (int l = 0; l < state.n_layers(); ++l) {
        if (!generating_ || size_t(l) >= layers_.size()) {
            for (const std::string& name : selection_invariant_names())
                out.push_back({name, true, l, -1, {}, "checked from the first tick on"});
            continue;
        }
        const std::vector<InvariantResult> layer =
            check_selection(layers_[size_t(l)], budget_, l, state.layer_map(l), state.ledger(),
                            layers_.front().sinks);
        out.insert(out.end(), layer.begin(), layer.end());
    }
    return out;
}

}  // namespace kvw
