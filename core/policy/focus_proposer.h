#pragma once
#include "core/policy/proposer.h"

namespace kvw {

// The wLOD focus policy (ARCHITECTURE §14), on layer 0's rows, for every layer. When the rows
// plus the token this tick appends would exceed W_max, it collapses the darkest whole block
// (lowest mean brightness, the older on a tie) that ends before the last K rows: a level-1
// block of K token rows, or else a level-2 block of K level-1 gists; never a block that holds
// a pinned row (BOS, a ring's sinks: ProposerInput::pinned_rows). When there is room for an
// expansion and a block of slack after it (rows + 1 + (K - 1) + K <= W_max), it expands the
// brightest gist (the older on a tie). One action per tick; none without wLOD input.
class FocusProposer final : public Proposer {
public:
    ActionList propose(const ProposerInput& input) override;
    std::string_view name() const override { return "focus"; }
    bool reads_rows() const override { return true; }
    std::unique_ptr<Proposer> clone() const override {
        return std::make_unique<FocusProposer>(*this);
    }
};

}  // namespace kvw
