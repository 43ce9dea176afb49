// The wLOD invariants (ARCHITECTURE §14), checked on every tick of a session with wLOD on.
#include <algorithm>
#include <set>
#include <string>

#include "core/math/mean_pool.h"
#include "core/wlod/wlod_context.h"

namespace kvw {

namespace {

InvariantResult result(std::string name, int layer, int row, std::string detail) {
    const bool ok = row < 0 && detail.empty();
    return InvariantResult{std::move(name), ok, layer, row, std::move(detail)};
}

}  // namespace

std::vector<InvariantResult> WlodContext::check_invariants(const StateManager& state) const {
    std::vector<InvariantResult> out;
    const int64_t k = state.wlod_k();
    for (int l = 0; l < state.n_layers(); ++l) {
        const LayerMap& map = state.layer_map(l);
        const WlodTree tree = WlodTree::build(state, l);

        // Contiguity: the rows tile the timeline — no record twice, and every leaf a gist
        // stands for is Collapsed in this layer (not lost, not live elsewhere in the rows).
        int bad_row = -1;
        std::string detail;
        std::set<int64_t> seen;
        for (size_t i = 0; i < tree.leaves().size() && bad_row < 0; ++i) {
            const int64_t id = tree.leaves()[i];
            const int r = tree.row_of_leaf(int64_t(i));
            const bool under_gist = state.gist(map.pos2ledger[size_t(r)]) != nullptr;
            const RowStatus s = state.ledger().at(id).status[size_t(l)];
            if (!seen.insert(id).second) {
                bad_row = r;
                detail = "record " + std::to_string(id) + " appears twice on the timeline";
            } else if (under_gist && s != RowStatus::Collapsed) {
                bad_row = r;
                detail = "record " + std::to_string(id) + " under a gist is not Collapsed";
            }
        }
        out.push_back(result("wlod_contiguity", l, bad_row, detail));

        // Block alignment, level consistency and the gist RoPE position, row by row.
        int align_row = -1, level_row = -1, rope_row = -1;
        std::string align_detail, level_detail, rope_detail;
        for (int r = 0; r < map.rows(); ++r) {
            const GistRecord* g = state.gist(map.pos2ledger[size_t(r)]);
            if (!g) continue;
            const int64_t span = g->level == 2 ? k * k : k;
            const int64_t first = tree.first_leaf_of_row(r);
            if (align_row < 0 && (first % span != 0 || int64_t(g->leaves.size()) != span)) {
                align_row = r;
                align_detail = "gist at leaf " + std::to_string(first) + " spans " +
                               std::to_string(g->leaves.size()) + " leaves, blocks of " +
                               std::to_string(span);
            }
            const bool children_ok =
                int64_t(g->children.size()) == k &&
                std::all_of(g->children.begin(), g->children.end(), [&](int64_t c) {
                    const GistRecord* cg = state.gist(c);
                    return (cg ? cg->level : 0) == g->level - 1;
                });
            if (level_row < 0 && !children_ok) {
                level_row = r;
                level_detail = "a level-" + std::to_string(g->level) +
                               " gist whose children are not " + std::to_string(k) +
                               " nodes of level " + std::to_string(g->level - 1);
            }
            const int32_t central = g->leaf_phases[size_t(central_leaf(int(g->leaves.size())))];
            if (rope_row < 0 && (map.rope_pos[size_t(r)] != central || g->phase != central)) {
                rope_row = r;
                rope_detail = "gist phase " + std::to_string(map.rope_pos[size_t(r)]) +
                              ", central leaf's phase " + std::to_string(central);
            }
        }
        out.push_back(result("wlod_alignment", l, align_row, align_detail));
        out.push_back(result("wlod_levels", l, level_row, level_detail));
        out.push_back(result("wlod_gist_rope", l, rope_row, rope_detail));

        const bool over = options_.w_max > 0 && map.rows() > options_.w_max;
        InvariantResult budget = result(
            "wlod_budget", l, over ? int(options_.w_max) : -1,
            over ? std::to_string(map.rows()) + " rows, W_max " + std::to_string(options_.w_max)
                 : std::string());
        if (options_.w_max <= 0) budget.not_applicable = "no W_max set (wlod K W_MAX)";
        out.push_back(std::move(budget));
    }
    // Numeric: what the last regeneration left against a fresh full pass.
    const bool drifted = last_drift_ > last_tolerance_;
    out.push_back(result("wlod_incremental_equals_full", -1, drifted ? last_first_row_ : -1,
                         drifted ? "drift " + std::to_string(last_drift_) +
                                       " after regeneration, tolerance " +
                                       std::to_string(last_tolerance_)
                                 : std::string()));
    return out;
}

}  // namespace kvw
