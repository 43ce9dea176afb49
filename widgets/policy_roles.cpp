#include "widgets/policy_roles.h"

#include <algorithm>

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

PolicyRoles policy_roles(const Frame& frame, RowWindow records) {
    const int n_records = int(frame.ledger.size());
    const int first = std::clamp(records.first, 0, n_records);
    const int last = std::clamp(records.last, first, n_records);
    const size_t layers = frame.layers.size();
    PolicyRoles roles(layers, std::vector<PolicyRole>(size_t(last - first), PolicyRole::None));
    for (int id = first; id < last; ++id) {
        const std::vector<Removal>& removal = frame.ledger[size_t(id)].removal;
        for (size_t l = 0; l < std::min(layers, removal.size()); ++l)
            if (removal[l].tick >= 0) roles[l][size_t(id - first)] = PolicyRole::Evicted;
    }
    for (size_t l = 0; l < layers; ++l) {
        std::vector<PolicyRole>& layer = roles[l];
        const auto mark = [&layer, first, last](int64_t id, PolicyRole role) {
            if (id >= first && id < last) layer[size_t(id - first)] = role;
        };
        // Live rows first as plain kept rows, then the selection's roles over them: a row the
        // bookkeeping does not name stays "kept", which the budget_rows invariant reports.
        for (int64_t id : frame.layers[l].pos2ledger) mark(id, PolicyRole::Kept);
        if (l >= frame.selection.size()) continue;
        const LayerSelection& s = frame.selection[l];
        for (int64_t id : s.sinks) mark(id, PolicyRole::Sink);
        for (int64_t id : s.window) mark(id, PolicyRole::Window);
        for (const auto& [score, id] : s.high_value) mark(id, PolicyRole::HighValue);
    }
    return roles;
}

std::vector<PolicyRole> pool_policy_roles(const std::vector<PolicyRole>& roles, int cells) {
    const size_t n = roles.size();
    const size_t count = std::min(n, size_t(std::max(cells, 1)));
    std::vector<PolicyRole> pooled(count, PolicyRole::None);
    for (size_t c = 0; c < count; ++c) {
        const size_t begin = c * n / count;
        const size_t end = (c + 1) * n / count;  // > begin: count <= n
        pooled[c] =
            *std::max_element(roles.begin() + ptrdiff_t(begin), roles.begin() + ptrdiff_t(end));
    }
    return pooled;
}

std::optional<float> eviction_threshold(const Frame& frame, int layer) {
    if (layer < 0 || size_t(layer) >= frame.selection.size()) return std::nullopt;
    const LayerSelection& s = frame.selection[size_t(layer)];
    const int budget = frame.policy.budget.budget;
    if (budget <= 0 || s.high_value.size() < size_t(budget)) return std::nullopt;
    return s.high_value.front().first;
}

}  // namespace kvw
