#pragma once
#include "core/policy/proposer.h"

namespace kvw {

// The wLOD focus policy (ARCHITECTURE §14), one action for every layer. When the longest layer
// plus the token this tick appends would exceed W_max, it collapses the darkest block (layer 0's
// brightness; lowest mean, the older on a tie) that is whole in every layer and ends before each
// layer's last K rows: a level-1 block of K token rows, or else a level-2 block of K level-1
// gists; never a block that holds a pinned row (BOS, a ring's sinks:
// ProposerInput::pinned_rows). Layers differ after an edit on some of them, and a block whole in
// one layer only would be refused. When there is room for an expansion and a block of slack
// after it (longest + 1 + (K - 1) + K <= W_max), it expands layer 0's brightest gist (the older
// on a tie); where another layer holds no gist at that row, pre-flight refuses it and the session
// drops it (InvalidProposals::Drop). One action per tick; none without wLOD input.
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
