#include "core/policy/policy_table.h"

#include <algorithm>

#include "core/policy/attention_scorer.h"
#include "core/policy/focus_proposer.h"
#include "core/policy/gate/smartkv_scorer.h"
#include "core/policy/manual_proposer.h"
#include "core/policy/pair_merge_proposer.h"
#include "core/policy/policy_error.h"
#include "core/policy/random_scorer.h"
#include "core/policy/recency_scorer.h"
#include "core/policy/selective_policy.h"

namespace kvw {

namespace {

template <class P>
std::unique_ptr<Proposer> plain(const PolicyOptions&) {
    return std::make_unique<P>();
}

// A selective policy (S+B+W per layer) around the scorer `make_scorer` builds.
template <class MakeScorer>
auto selective(std::string_view name, MakeScorer make_scorer) {
    return [name, make_scorer](const PolicyOptions& o) -> std::unique_ptr<Proposer> {
        return std::make_unique<SelectivePolicy>(std::string(name), o.budget, make_scorer(o));
    };
}

// Adding a policy: one class (a Proposer, or a RowScorer for a selective one) and one row here.
const std::vector<PolicyInfo>& table() {
    static const std::vector<PolicyInfo> rows = {
        {"manual", "no proposals: only injected actions", false, plain<ManualProposer>},
        {"pair-merge", "merges the darkest adjacent pair that the vocabulary spells as one token",
         false, plain<PairMergeProposer>},
        {"focus",
         "wLOD focus: collapses the oldest, darkest blocks beyond --wlod-max, expands the "
         "brightest gists when there is room (needs --wlod-k and --wlod-max)",
         false,
         plain<FocusProposer>,
         {"wlod_budget"}},
        {"streaming-llm", "sinks + the most recent B+W rows (StreamingLLM)", true,
         selective("streaming-llm",
                   [](const PolicyOptions&) { return std::make_unique<RecencyScorer>(); })},
        {"h2o", "sinks + window + the B rows with the most accumulated attention (H2O)", true,
         selective("h2o",
                   [](const PolicyOptions&) { return std::make_unique<AttentionScorer>(); })},
        {"random", "sinks + window + B rows drawn at random (seeded by --seed)", true,
         selective("random",
                   [](const PolicyOptions& o) { return std::make_unique<RandomScorer>(o.seed); })},
        {"smartkv",
         "sinks + window + the B rows the gate MLP expects to be attended longest (--gate; "
         "default: the NAME.gate.gguf beside the model)",
         true,
         selective("smartkv",
                   [](const PolicyOptions& o) { return std::make_unique<SmartKvScorer>(o.gate); })},
    };
    return rows;
}

}  // namespace

std::span<const PolicyInfo> policy_table() { return table(); }

const PolicyInfo* find_policy(std::string_view name) {
    for (const PolicyInfo& p : table())
        if (p.name == name) return &p;
    return nullptr;
}

bool policy_goal_not_applicable(InvariantResult& result, std::string_view proposer) {
    std::string keepers;
    for (const PolicyInfo& p : table()) {
        if (std::find(p.keeps.begin(), p.keeps.end(), result.name) == p.keeps.end()) continue;
        if (p.name == proposer) return false;
        keepers += (keepers.empty() ? "" : ", ") + std::string(p.name);
    }
    if (keepers.empty() || !result.not_applicable.empty()) return false;
    result.not_applicable = "needs a policy: " + keepers;
    if (!result.passed) result.not_applicable += " (now " + result.detail + ")";
    result.passed = true;
    result.row = -1;
    result.detail.clear();
    return true;
}

std::vector<std::string> proposer_names() {
    std::vector<std::string> names;
    for (const PolicyInfo& p : table()) names.emplace_back(p.name);
    return names;
}

std::unique_ptr<Proposer> make_proposer(std::string_view name, const PolicyOptions& options) {
    if (const PolicyInfo* p = find_policy(name)) return p->make(options);
    std::string known;
    for (const std::string& n : proposer_names()) known += (known.empty() ? "" : ", ") + n;
    throw UnknownProposer(std::string(name), known);
}

}  // namespace kvw
