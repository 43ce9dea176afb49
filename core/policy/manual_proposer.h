#pragma once
#include "core/policy/proposer.h"

namespace kvw {

// Proposes nothing: only the actions the user injects are applied.
class ManualProposer final : public Proposer {
public:
    ActionList propose(const ProposerInput&) override { return {}; }
    std::string_view name() const override { return "manual"; }
    std::unique_ptr<Proposer> clone() const override {
        return std::make_unique<ManualProposer>(*this);
    }
};

}  // namespace kvw
