#pragma once
#include "core/policy/row_scorer.h"

namespace kvw {

// `streaming-llm`: the score is the record's age order (its ledger id), so the high-value rows
// are simply the most recent ones beyond the window: sinks + the last B+W records, StreamingLLM
// with a window of B+W at the same memory as the other policies.
class RecencyScorer final : public RowScorer {
public:
    float score(const ScoredRow& row, const StateManager&) override { return float(row.id); }
    std::unique_ptr<RowScorer> clone() const override {
        return std::make_unique<RecencyScorer>(*this);
    }
    bool reads_key() const override { return false; }
};

}  // namespace kvw
