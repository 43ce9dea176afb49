#include "core/policy/proposer.h"

#include "core/policy/focus_proposer.h"
#include "core/policy/manual_proposer.h"
#include "core/policy/pair_merge_proposer.h"
#include "core/policy/policy_error.h"

namespace kvw {

std::vector<std::string> proposer_names() { return {"manual", "pair-merge", "focus"}; }

std::unique_ptr<Proposer> make_proposer(std::string_view name) {
    if (name == "manual") return std::make_unique<ManualProposer>();
    if (name == "pair-merge") return std::make_unique<PairMergeProposer>();
    if (name == "focus") return std::make_unique<FocusProposer>();
    std::string known;
    for (const std::string& n : proposer_names()) known += (known.empty() ? "" : ", ") + n;
    throw UnknownProposer(std::string(name), known);
}

}  // namespace kvw
