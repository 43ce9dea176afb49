#include "core/wlod/wlod_tree.h"

#include <algorithm>
#include <cmath>

#include "core/math/mean_pool.h"

namespace kvw {

const char* in_context_name(InContext how) {
    switch (how) {
        case InContext::AsTokens: return "tokens";
        case InContext::AsGist: return "gist";
        case InContext::Covered: return "covered";
        case InContext::Expanded: return "expanded";
    }
    return "?";
}

WlodTree WlodTree::build(const StateManager& state, int layer) {
    WlodTree t;
    t.k_ = state.wlod_k();
    t.layer_ = layer;
    const LayerMap& map = state.layer_map(layer);
    const int64_t k = t.k_;
    // Rows as (level, first leaf) while the timeline is laid out.
    std::vector<std::pair<int, int64_t>> gist_rows;
    for (int r = 0; r < map.rows(); ++r) {
        const int64_t id = map.pos2ledger[size_t(r)];
        t.row_first_leaf_.push_back(int64_t(t.leaves_.size()));
        if (const GistRecord* g = state.gist(id)) {
            gist_rows.emplace_back(g->level, int64_t(t.leaves_.size()));
            t.leaves_.insert(t.leaves_.end(), g->leaves.begin(), g->leaves.end());
            t.leaf_phases_.insert(t.leaf_phases_.end(), g->leaf_phases.begin(),
                                  g->leaf_phases.end());
            t.row_of_leaf_.insert(t.row_of_leaf_.end(), g->leaves.size(), r);
        } else {
            t.leaves_.push_back(id);
            t.leaf_phases_.push_back(map.rope_pos[size_t(r)]);
            t.row_of_leaf_.push_back(r);
        }
    }
    t.row_first_leaf_.push_back(int64_t(t.leaves_.size()));

    const int64_t n = int64_t(t.leaves_.size());
    const int64_t spans[3] = {k, k, k * k};
    for (int l = 0; l < 3; ++l) {
        for (int64_t i = 0; i * spans[l] < n; ++i) {
            WlodNode node;
            node.level = l;
            node.index = i;
            node.first_leaf = i * spans[l];
            node.end_leaf = std::min(n, (i + 1) * spans[l]);
            node.complete = node.end_leaf - node.first_leaf == spans[l];
            node.how = l == 0 ? InContext::AsTokens : InContext::Expanded;
            node.first_row = t.row_of_leaf_[size_t(node.first_leaf)];
            node.rows = t.row_of_leaf_[size_t(node.end_leaf - 1)] - node.first_row + 1;
            const int64_t span = node.end_leaf - node.first_leaf;
            node.t_center = t.leaf_phases_[size_t(node.first_leaf + central_leaf(int(span)))];
            double mean = 0.0, var = 0.0;
            for (int64_t j = node.first_leaf; j < node.end_leaf; ++j)
                mean += t.leaf_phases_[size_t(j)];
            mean /= double(span);
            for (int64_t j = node.first_leaf; j < node.end_leaf; ++j)
                var += (t.leaf_phases_[size_t(j)] - mean) * (t.leaf_phases_[size_t(j)] - mean);
            node.sigma = std::sqrt(var / double(span));
            t.levels_[l].push_back(std::move(node));
        }
    }
    // Gist rows: the node they show is AsGist, everything below it Covered.
    for (const auto& [level, first] : gist_rows) {
        const int64_t span = level == 1 ? k : k * k;
        WlodNode& shown = t.levels_[level][size_t(first / span)];
        shown.how = InContext::AsGist;
        shown.gist_id = map.pos2ledger[size_t(shown.first_row)];
        if (const GistRecord* g = state.gist(shown.gist_id)) shown.gist = g->embedding;
        for (int l = 0; l < level; ++l)
            for (int64_t b = first / k; b < (first + span) / k; ++b)
                t.levels_[l][size_t(b)].how = InContext::Covered;
    }
    return t;
}

}  // namespace kvw
