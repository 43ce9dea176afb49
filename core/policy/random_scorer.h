#pragma once
#include <cstdint>

#include "core/policy/row_scorer.h"

namespace kvw {

// `random`: a seeded draw per (layer, record), uniform in [0, 1): the baseline every paper
// compares with. A function of the seed, the layer and the ledger id only, so the same
// session replays the same choices whatever order rows are scored in.
class RandomScorer final : public RowScorer {
public:
    explicit RandomScorer(uint64_t seed) : seed_(seed) {}
    float score(const ScoredRow& row, const StateManager&) override;
    std::unique_ptr<RowScorer> clone() const override {
        return std::make_unique<RandomScorer>(*this);
    }
    bool reads_key() const override { return false; }

private:
    uint64_t seed_;
};

}  // namespace kvw
