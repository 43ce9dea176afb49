#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/policy/layer_selection.h"
#include "core/policy/proposer.h"
#include "core/policy/row_scorer.h"

namespace kvw {

// "Equal size, different content" (docs/ARCHITECTURE.md §12): every layer keeps S sinks, W
// recent rows and B high-value rows chosen by the scorer. The prefill is kept whole; the first
// tick after it bulk-prunes each layer to its first S rows, its last W rows and the top B of
// the rest; from then on, each tick the row leaving the window competes with the weakest
// high-value row and the loser is deleted. Every eviction is a per-layer delete action with its
// reason and score, applied by Step 4 through the StateManager like any other action.
//
// The bookkeeping follows the state rather than trusting the plan: propose() only plans; the
// plan is taken over by observe() when the tick appended its token, and any row that someone
// else removed (an injected delete) leaves the bookkeeping there too.
class SelectivePolicy final : public Proposer {
public:
    // Throws PolicyInputError for a bad budget (check_budget).
    SelectivePolicy(std::string name, PolicyBudget budget, std::unique_ptr<RowScorer> scorer);

    ActionList propose(const ProposerInput& input) override;
    std::string_view name() const override { return name_; }
    std::unique_ptr<Proposer> clone() const override;
    void observe(const StateManager& state, bool appended) override;
    std::vector<InvariantResult> check_invariants(const StateManager& state) const override;
    std::vector<LayerSelection> selection() const override { return layers_; }

    const PolicyBudget& budget() const { return budget_; }
    bool generating() const { return generating_; }

private:
    // The scorer cloned with the rest (clone()).
    SelectivePolicy(const SelectivePolicy& other);
    struct Eviction {
        int64_t id;
        RemovalCause cause;
    };
    using RowOf = std::unordered_map<int64_t, int>;  // id -> row in one layer
    void take_scores(const StateManager& state, int layer, std::vector<int> rows);
    float score(const StateManager& state, int layer, int row);  // one row's, taken if need be
    void bulk_prune(const StateManager& state, int layer, LayerSelection& s,
                    std::vector<Eviction>& out);
    void rescore(const StateManager& state, int layer, const RowOf& row_of, LayerSelection& s);
    void stream(const StateManager& state, int layer, const RowOf& row_of, LayerSelection& s,
                std::vector<Eviction>& out);
    void follow(const StateManager& state, int layer);

    std::string name_;
    PolicyBudget budget_;
    std::unique_ptr<RowScorer> scorer_;
    bool generating_ = false;
    std::vector<LayerSelection> layers_;
    std::vector<std::map<int64_t, float>> scores_;  // [layer]: id -> score of a held row
    std::vector<int64_t> newest_;                   // [layer]: the newest id the layer took in
    std::optional<std::vector<LayerSelection>> planned_;
};

}  // namespace kvw
