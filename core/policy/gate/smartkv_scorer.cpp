#include "core/policy/gate/smartkv_scorer.h"

#include "core/policy/gate/gate_file.h"
#include "core/policy/gate/gate_key.h"
#include "core/policy/gate/gate_sidecar.h"
#include "core/policy/policy_error.h"
#include "core/state/finite_check.h"
#include "core/state/state_manager.h"

namespace kvw {

SmartKvScorer::SmartKvScorer(std::string gate_path) : path_(std::move(gate_path)) {
    if (!path_.empty()) gate_ = std::make_shared<const GateMlp>(read_gate_file(path_));
}

const GateMlp& SmartKvScorer::gate_for(const StateManager& state) {
    const Model& model = state.engine().model();
    if (!gate_) {
        const auto beside = gate_beside_model(model.source);
        if (!beside)
            throw PolicyInputError("smartkv: no gate given (--gate) and no sidecar beside model '" +
                                   model.source + "' (NAME.gate.gguf next to NAME.gguf)");
        path_ = beside->string();
        gate_ = std::make_shared<const GateMlp>(read_gate_file(path_));
    }
    if (!checked_) {
        const GateShape& g = gate_->shape();
        if (g.n_layers != model.config.n_layers || g.input_dim != model.config.kv_dim())
            throw PolicyInputError("smartkv: gate " + path_ + " has " + std::to_string(g.n_layers) +
                                   " layers of input " + std::to_string(g.input_dim) + ", model '" +
                                   model.source + "' has " + std::to_string(model.config.n_layers) +
                                   " layers with keys of " + std::to_string(model.config.kv_dim()) +
                                   " floats");
        checked_ = true;
    }
    return *gate_;
}

void SmartKvScorer::observe(const StateManager& state, bool) { gate_for(state); }

float SmartKvScorer::score(const ScoredRow& row, const StateManager& state) {
    const GateMlp& gate = gate_for(state);
    const std::vector<float> key = gate_key(row.k, row.rope_pos, state.engine().model().config,
                                            state.engine().rope(), gate.key_kind());
    const float score = gate.score(row.layer, key);
    // A gate with huge finite weights overflows to NaN, which every comparison of the
    // eviction then skips: the rows it keeps would be arbitrary.
    require_finite(std::span<const float>(&score, 1), "score", row.layer,
                   "the smartkv gate " + path_ + "'s score of row " + std::to_string(row.row) +
                       " (record " + std::to_string(row.id) + ")");
    return score;
}

}  // namespace kvw
