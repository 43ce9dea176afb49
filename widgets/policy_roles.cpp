#include "widgets/policy_roles.h"

namespace kvw {

const char* policy_role_name(PolicyRole role) {
    switch (role) {
        case PolicyRole::None: return "none";
        case PolicyRole::Evicted: return "evicted";
        case PolicyRole::Kept: return "kept";
        case PolicyRole::Window: return "window";
        case PolicyRole::HighValue: return "high-value";
        case PolicyRole::Sink: return "sink";
    }
    return "?";
}

std::vector<PolicyRole> policy_roles(const Frame& frame, int layer) {
    std::vector<PolicyRole> roles(frame.ledger.size(), PolicyRole::None);
    if (layer < 0 || size_t(layer) >= frame.layers.size()) return roles;
    for (const LedgerRecord& r : frame.ledger)
        if (size_t(layer) < r.removal.size() && r.removal[size_t(layer)].tick >= 0)
            roles[size_t(r.id)] = PolicyRole::Evicted;
    const auto mark = [&roles](int64_t id, PolicyRole role) {
        if (id >= 0 && size_t(id) < roles.size()) roles[size_t(id)] = role;
    };
    // Live rows first as plain kept rows, then the selection's roles over them: a row the
    // bookkeeping does not name stays "kept", which the budget_rows invariant reports.
    for (int64_t id : frame.layers[size_t(layer)].pos2ledger) mark(id, PolicyRole::Kept);
    if (size_t(layer) >= frame.selection.size()) return roles;
    const LayerSelection& s = frame.selection[size_t(layer)];
    for (int64_t id : s.sinks) mark(id, PolicyRole::Sink);
    for (int64_t id : s.window) mark(id, PolicyRole::Window);
    for (const auto& [score, id] : s.high_value) mark(id, PolicyRole::HighValue);
    return roles;
}

std::optional<float> eviction_threshold(const Frame& frame, int layer) {
    if (layer < 0 || size_t(layer) >= frame.selection.size()) return std::nullopt;
    const LayerSelection& s = frame.selection[size_t(layer)];
    const int budget = frame.policy.budget.budget;
    if (budget <= 0 || s.high_value.size() < size_t(budget)) return std::nullopt;
    return s.high_value.front().first;
}

}  // namespace kvw
