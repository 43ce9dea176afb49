#pragma once
#include <memory>
#include <string>

#include "core/policy/gate/gate_mlp.h"
#include "core/policy/row_scorer.h"

namespace kvw {

// `smartkv` (docs/ARCHITECTURE.md §12): a row's score is the gate MLP of its layer on its
// pre-RoPE key, the predicted log4(1 + lifespan), taken once when the row enters the layer.
// The gate is the sidecar `gate_path`, read when the scorer is made (a bad file fails there);
// with an empty path, the sidecar beside the session's model (gate_beside_model), read at the
// first observe(). Either is checked against the model: PolicyInputError when its layer count
// or input width differs, or when there is no sidecar to default to.
class SmartKvScorer final : public RowScorer {
public:
    explicit SmartKvScorer(std::string gate_path);

    void observe(const StateManager& state, bool appended) override;
    float score(const ScoredRow& row, const StateManager& state) override;
    std::unique_ptr<RowScorer> clone() const override {
        return std::make_unique<SmartKvScorer>(*this);
    }

private:
    const GateMlp& gate_for(const StateManager& state);

    std::string path_;
    std::shared_ptr<const GateMlp> gate_;
    bool checked_ = false;  // the gate was checked against the session's model
};

}  // namespace kvw
