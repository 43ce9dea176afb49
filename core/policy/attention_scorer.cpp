#include "core/policy/attention_scorer.h"

#include "core/state/state_manager.h"

namespace kvw {

void AttentionScorer::observe(const StateManager& state, bool appended) {
    received_.resize(size_t(state.n_layers()));
    if (!appended) return;
    const auto& mass = state.last_attention_mass();
    for (int l = 0; l < state.n_layers() && size_t(l) < mass.size(); ++l) {
        const std::vector<int64_t>& ids = state.layer_map(l).pos2ledger;
        if (mass[size_t(l)].size() != ids.size()) continue;  // measured on other rows
        std::vector<double>& sum = received_[size_t(l)];
        sum.resize(size_t(state.ledger().size()), 0.0);
        for (size_t r = 0; r < ids.size(); ++r) sum[size_t(ids[r])] += mass[size_t(l)][r];
    }
}

float AttentionScorer::score(const ScoredRow& row, const StateManager&) {
    const size_t l = size_t(row.layer);
    if (l >= received_.size() || size_t(row.id) >= received_[l].size()) return 0.0f;
    return float(received_[l][size_t(row.id)]);
}

}  // namespace kvw
