#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/tokenizer.h"
#include "core/policy/layer_selection.h"
#include "core/policy/policy_options.h"
#include "core/state/action.h"
#include "core/state/invariant_result.h"

namespace kvw {

class StateManager;

// What a proposer sees of the state at Steps 2-3, after the brightness update.
struct ProposerInput {
    const std::vector<std::vector<int32_t>>& row_tokens;  // [layer][row]: token id of each row
    const std::vector<std::vector<float>>& brightness;    // [layer][row]
    const Tokenizer& tokenizer;
    // The whole state, read only, for proposers that need more than tokens and brightness (the
    // selective policies: ledger ids, K rows, attention mass). The session always gives it;
    // unit tests of proposers that do not need it may leave it null.
    const StateManager* state = nullptr;
    // wLOD (ARCHITECTURE §14), for the focus proposer: [layer][row] 0 for a token row, else the
    // gist's level (null when wLOD is off), the block size K and the row budget W_max.
    const std::vector<std::vector<uint8_t>>* row_levels = nullptr;
    int wlod_k = 0;
    int64_t wlod_max = 0;
    // Rows [0, n) that no collapse may hold in some layer (StateManager::pinned_rows: BOS, a
    // ring's sinks; the largest over the layers, since focus collapses on every layer).
    int pinned_rows = 0;
};

// Suggests Step 4 actions in the positions of the current cache. Proposals are merged with the
// injected actions (merge_actions) and validated before anything is applied, so a proposer
// needs not be perfect, only deterministic for a given input (replay depends on it).
// The proposers are listed once, in policy_table.cpp.
class Proposer {
public:
    virtual ~Proposer() = default;
    virtual ActionList propose(const ProposerInput& input) = 0;
    virtual std::string_view name() const = 0;
    // An exact copy, bookkeeping included, for a session checkpoint (ARCHITECTURE §16).
    virtual std::unique_ptr<Proposer> clone() const = 0;
    // Whether propose() reads ProposerInput's row_tokens and brightness; the session leaves
    // them empty for a proposer that does not (at 22 x 100,000 rows they are millions of
    // ledger reads a tick, ARCHITECTURE §6.1). The selective policies read the state itself.
    virtual bool reads_rows() const { return false; }

    // The session calls this after every change it makes to the rows: the prefill, each tick's
    // Step 4 (also a rejected or aborted one, which changed nothing) and apply_now. `appended`:
    // the change ended with an append, whose attention mass state.last_attention_mass() holds.
    // A proposer with bookkeeping of its own (the selective policies) follows the rows here,
    // including rows that others removed.
    virtual void observe(const StateManager& state, bool appended) {
        (void)state;
        (void)appended;
    }
    // Checks of that bookkeeping against the state, shown beside the state's own invariants.
    virtual std::vector<InvariantResult> check_invariants(const StateManager& state) const {
        (void)state;
        return {};
    }
    // That bookkeeping per layer, for the frame; empty for proposers that keep none.
    virtual std::vector<LayerSelection> selection() const { return {}; }
};

// The proposers of the registration table (policy_table.h) by name. Throws UnknownProposer,
// or PolicyInputError for options the policy cannot take.
std::unique_ptr<Proposer> make_proposer(std::string_view name, const PolicyOptions& options = {});
std::vector<std::string> proposer_names();

}  // namespace kvw
