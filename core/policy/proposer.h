#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/tokenizer.h"
#include "core/state/action.h"

namespace kvw {

// What a proposer sees of the state at Steps 2-3, after the brightness update.
struct ProposerInput {
    const std::vector<std::vector<int32_t>>& row_tokens;  // [layer][row]: token id of each row
    const std::vector<std::vector<float>>& brightness;    // [layer][row]
    const Tokenizer& tokenizer;
    // wLOD (ARCHITECTURE §14), for the focus proposer: [layer][row] 0 for a token row, else the
    // gist's level (null when wLOD is off), the block size K and the row budget W_max.
    const std::vector<std::vector<uint8_t>>* row_levels = nullptr;
    int wlod_k = 0;
    int64_t wlod_max = 0;
};

// Suggests Step 4 actions in the positions of the current cache. Proposals are merged with the
// injected actions (merge_actions) and validated before anything is applied, so a proposer
// needs not be perfect, only deterministic for a given input (replay depends on it).
class Proposer {
public:
    virtual ~Proposer() = default;
    virtual ActionList propose(const ProposerInput& input) = 0;
    virtual std::string_view name() const = 0;
};

// The proposers by name: "manual", "pair-merge", "focus". Throws UnknownProposer.
std::unique_ptr<Proposer> make_proposer(std::string_view name);
std::vector<std::string> proposer_names();

}  // namespace kvw
