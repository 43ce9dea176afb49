#pragma once
#include <vector>

#include "core/policy/row_scorer.h"

namespace kvw {

// `h2o` (Heavy-Hitter Oracle): a row's score is the attention it has received so far, summed
// over heads and over every query since it entered the layer (the prompt's queries included).
// It is added up after each append from StateManager::last_attention_mass(), so it grows as
// the session goes on: the held rows are scored again before each prune.
class AttentionScorer final : public RowScorer {
public:
    void observe(const StateManager& state, bool appended) override;
    float score(const ScoredRow& row, const StateManager&) override;
    std::unique_ptr<RowScorer> clone() const override {
        return std::make_unique<AttentionScorer>(*this);
    }
    bool rescored() const override { return true; }
    bool reads_key() const override { return false; }

private:
    std::vector<std::vector<double>> received_;  // [layer][ledger id]
};

}  // namespace kvw
