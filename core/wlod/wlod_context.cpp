#include "core/wlod/wlod_context.h"

#include <algorithm>

namespace kvw {

namespace {

// The first index where the two lists differ, or the shorter length; -1 when they are equal.
int64_t first_difference(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    const auto m = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    if (m.first == a.end() && m.second == b.end()) return -1;
    return int64_t(m.first - a.begin());
}

// The gist of a complete level-1 or level-2 node: its leaves' token embeddings or its level-1
// children's gists (from `level1`), through the state's GistNet.
std::vector<float> node_gist(const StateManager& state, const WlodTree& tree, const WlodNode& node,
                             const std::map<NodeKey, std::vector<float>>& level1) {
    std::vector<std::vector<float>> owned;
    std::vector<std::span<const float>> children;
    if (node.level == 1) {
        owned.reserve(size_t(node.end_leaf - node.first_leaf));
        for (int64_t i = node.first_leaf; i < node.end_leaf; ++i) {
            owned.push_back(state.engine().token_embedding(
                state.ledger().at(tree.leaves()[size_t(i)]).token_id));
            children.push_back(owned.back());
        }
    } else {
        const int64_t k = tree.k();
        for (int64_t b = node.first_leaf / k; b < node.end_leaf / k; ++b)
            children.push_back(level1.at({1, b}));
    }
    return state.gist_net().gist(children, node.level);
}

}  // namespace

WlodContext::WlodContext(const StateManager& state, WlodOptions options)
    : options_(options), layers_(size_t(state.n_layers())) {
    observe(state);
}

void WlodContext::observe(const StateManager& state) {
    const int k = state.wlod_k();
    for (int l = 0; l < state.n_layers(); ++l) {
        LayerTrack& t = layers_[size_t(l)];
        const WlodTree tree = WlodTree::build(state, l);
        const std::vector<int64_t>& rows = state.layer_map(l).pos2ledger;
        Invalidation inv;
        const int64_t changed_row = first_difference(t.rows, rows);
        if (changed_row >= 0) inv.temporal_from = tree.first_leaf_of_row(int(changed_row));
        const std::vector<int64_t>& leaves = tree.leaves();
        const size_t n = std::max(leaves.size(), t.leaves.size());
        for (size_t i = 0; i < n; ++i) {
            if (i < leaves.size() && i < t.leaves.size() && leaves[i] == t.leaves[i]) continue;
            if (i >= leaves.size()) break;  // nodes past the new end are gone, not dirty
            inv.hierarchical.insert({0, int64_t(i) / k});
            inv.hierarchical.insert({1, int64_t(i) / k});
            inv.hierarchical.insert({2, int64_t(i) / (int64_t(k) * k)});
        }
        if (inv.temporal_from >= 0)
            t.temporal_from = t.temporal_from < 0 ? inv.temporal_from
                                                  : std::min(t.temporal_from, inv.temporal_from);
        t.hier.insert(inv.hierarchical.begin(), inv.hierarchical.end());
        if (changed_row >= 0 || !inv.hierarchical.empty()) t.last = std::move(inv);
        t.rows = rows;
        t.leaves = leaves;
    }
}

void WlodContext::regenerate_gists(const StateManager& state, int layer) {
    LayerTrack& t = layers_[size_t(layer)];
    const WlodTree tree = WlodTree::build(state, layer);
    // Entries of nodes that no longer exist, or are no longer complete, go.
    for (auto it = t.gists.begin(); it != t.gists.end();) {
        const auto& nodes = tree.level(it->first.first);
        const bool keep =
            it->first.second < int64_t(nodes.size()) && nodes[size_t(it->first.second)].complete;
        it = keep ? std::next(it) : t.gists.erase(it);
    }
    for (int level = 1; level <= 2; ++level)  // bottom-up: level 2 pools level 1
        for (const NodeKey& key : t.hier) {
            if (key.first != level || key.second >= int64_t(tree.level(level).size())) continue;
            const WlodNode& node = tree.level(level)[size_t(key.second)];
            if (node.complete) t.gists[key] = node_gist(state, tree, node, t.gists);
        }
    t.hier.clear();
}

std::map<NodeKey, std::vector<float>> WlodContext::full_gists(const StateManager& state,
                                                              int layer) const {
    const WlodTree tree = WlodTree::build(state, layer);
    std::map<NodeKey, std::vector<float>> out;
    for (int level = 1; level <= 2; ++level)
        for (const WlodNode& node : tree.level(level))
            if (node.complete) out[{level, node.index}] = node_gist(state, tree, node, out);
    return out;
}

int WlodContext::regenerate(StateManager& state) {
    observe(state);
    int max_rows = 0;
    for (int l = 0; l < state.n_layers(); ++l) max_rows = std::max(max_rows, state.rows(l));
    int first_row = max_rows;
    for (int l = 0; l < state.n_layers(); ++l) {
        regenerate_gists(state, l);
        LayerTrack& t = layers_[size_t(l)];
        if (t.temporal_from < 0) continue;
        const WlodTree tree = WlodTree::build(state, l);
        const int row = t.temporal_from < int64_t(tree.leaves().size())
                            ? tree.row_of_leaf(t.temporal_from)
                            : tree.rows();
        first_row = std::min(first_row, row);
        t.temporal_from = -1;
    }
    last_full_ =
        first_row < max_rows && double(first_row) < options_.full_recompute_below * max_rows;
    if (last_full_) first_row = 0;
    if (first_row < max_rows) state.recompute_suffix(first_row);
    last_first_row_ = first_row;
    if (options_.verify) {
        // Rows stored as int8 / FP8 differ from a fresh float pass by their rounding however
        // exactly they were regenerated: that much is no difference between the two.
        last_tolerance_ = std::max(options_.tolerance, state.default_drift_tolerance());
        const DriftReport d = state.measure_drift(last_tolerance_);
        float m = 0.0f;
        for (const LayerDrift& l : d.layers)
            for (size_t r = 0; r < l.k.size(); ++r) m = std::max({m, l.k[r], l.v[r]});
        last_drift_ = m;
    }
    return first_row;
}

WlodTree WlodContext::tree(const StateManager& state, int layer) const {
    WlodTree tree = WlodTree::build(state, layer);
    const LayerTrack& t = layers_[size_t(layer)];
    for (int level = 0; level < 3; ++level)
        for (WlodNode& node : tree.level(level)) {
            const NodeKey key{level, node.index};
            node.dirty_hierarchical = t.hier.count(key) > 0;
            node.dirty_temporal = t.temporal_from >= 0 && node.end_leaf > t.temporal_from;
            if (node.gist.empty())
                if (const auto it = t.gists.find(key); it != t.gists.end()) node.gist = it->second;
        }
    return tree;
}

}  // namespace kvw
