// The wLOD primitives (ARCHITECTURE §14): collapse a whole aligned block into one gist row and
// expand a gist row back into its children. Same two-blade discipline as the Step 4 primitives.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "core/cache/ring_layout.h"
#include "core/math/mean_pool.h"
#include "core/state/action_validation.h"
#include "core/state/finite_check.h"
#include "core/state/state_error.h"
#include "core/state/state_manager.h"

namespace kvw {

namespace {

int64_t block_span(int k, int level) {
    int64_t span = 1;
    for (int i = 0; i < level; ++i) span *= k;
    return span;
}

[[noreturn]] void shape_error(const char* primitive, const std::string& detail) {
    throw StateError(StateErrorKind::WlodShape, primitive, detail);
}

// Layers whose rows [row, row + n) hold the same records share one gist record (or one expand).
std::vector<std::vector<int>> group_by_rows(const std::vector<int>& layers,
                                            const std::vector<std::vector<int64_t>>& rows_of) {
    std::map<std::vector<int64_t>, std::vector<int>> groups;
    for (size_t i = 0; i < layers.size(); ++i) groups[rows_of[i]].push_back(layers[i]);
    std::vector<std::vector<int>> out;
    for (auto& [ids, group] : groups) out.push_back(std::move(group));
    return out;
}

}  // namespace

const GistRecord* StateManager::gist(int64_t id) const {
    const auto it = gists_.find(id);
    return it == gists_.end() ? nullptr : &it->second;
}

std::optional<std::pair<int, int>> StateManager::first_gist_row() const {
    for (int l = 0; l < n_layers(); ++l) {
        const std::vector<int64_t>& ids = layer_map(l).pos2ledger;
        for (size_t r = 0; r < ids.size(); ++r)
            if (gist(ids[r])) return std::pair<int, int>{l, int(r)};
    }
    return std::nullopt;
}

void StateManager::set_wlod_k(int k) {
    changed();
    if (k < 2) shape_error("wlod", "K " + std::to_string(k) + " is below 2");
    if (k == wlod_k_) return;
    if (const auto held = first_gist_row())
        shape_error("wlod", "K cannot change from " + std::to_string(wlod_k_) + " to " +
                                std::to_string(k) + " while layer " + std::to_string(held->first) +
                                " row " + std::to_string(held->second) +
                                " holds a gist cut with the old K; expand the gists first");
    wlod_k_ = k;
}

bool StateManager::starts_with_bos(int layer) const {
    const int32_t bos = engine_->model().tokenizer.bos_id();
    const std::vector<int64_t>& ids = layer_map(layer).pos2ledger;
    return bos >= 0 && !ids.empty() && ledger_.at(ids.front()).token_id == bos;
}

int StateManager::pinned_rows(int layer) const {
    const RingLayout* r = ring();
    return std::max(starts_with_bos(layer) ? 1 : 0, r ? r->sink_rows(layer) : 0);
}

int64_t StateManager::leaf_count(int64_t id) const {
    const GistRecord* g = gist(id);
    return g ? int64_t(g->leaves.size()) : 1;
}

int64_t StateManager::leaf_offset(int layer, int row) const {
    int64_t offset = 0;
    const LayerMap& map = layer_map(layer);
    for (int r = 0; r < row && r < map.rows(); ++r) offset += leaf_count(map.pos2ledger[size_t(r)]);
    return offset;
}

int StateManager::check_block(int layer, int row, int level, const char* primitive) const {
    const LayerMap& map = layer_map(layer);
    const std::string where = " in layer " + std::to_string(layer);
    if (row < 0 || row >= map.rows())
        shape_error(primitive, "row " + std::to_string(row) + " outside [0, " +
                                   std::to_string(map.rows()) + ")" + where);
    const int64_t span = block_span(wlod_k_, level);
    const int64_t offset = leaf_offset(layer, row);
    if (offset % span != 0)
        shape_error(primitive, "row " + std::to_string(row) + " starts at token " +
                                   std::to_string(offset) + where + ", not at a multiple of " +
                                   std::to_string(span) + " (a level-" + std::to_string(level) +
                                   " block boundary)");
    int64_t covered = 0;
    int r = row;
    for (; r < map.rows() && covered < span; ++r) {
        const GistRecord* g = gist(map.pos2ledger[size_t(r)]);
        if (g && g->level >= level)
            shape_error(primitive, "row " + std::to_string(r) + where + " is already a level-" +
                                       std::to_string(g->level) + " gist");
        covered += leaf_count(map.pos2ledger[size_t(r)]);
    }
    if (covered != span)
        shape_error(primitive, "the block at row " + std::to_string(row) + where + " has " +
                                   std::to_string(covered) + " of its " + std::to_string(span) +
                                   " tokens; only whole blocks collapse");
    return r - row;
}

ForwardOutput StateManager::forward_records(int row, std::span<const int64_t> ids,
                                            std::span<const int32_t> phases) const {
    std::vector<Item> items;
    for (int64_t id : ids)
        items.push_back(gists_.count(id) ? Item{-1, gists_.at(id).embedding}
                                         : Item::of_token(ledger_.at(id).token_id));
    return run_forward(items, phases, context_before(row), ForwardOptions{false, false});
}

// Rows [row, row + K) of every layer in `layers` are the same K children of level - 1.
void StateManager::collapse_group(const std::vector<int>& layers, int row, int level,
                                  int64_t tick) {
    const LayerMap& map = layer_map(layers.front());
    const auto first = map.pos2ledger.begin() + row;
    GistRecord g;
    g.level = level;
    g.children.assign(first, first + wlod_k_);
    g.child_phases.assign(map.rope_pos.begin() + row, map.rope_pos.begin() + row + wlod_k_);
    std::vector<std::vector<float>> token_rows;  // owns token children's embeddings
    token_rows.reserve(g.children.size());       // so that the spans below stay valid
    std::vector<std::span<const float>> child_embeddings;
    for (size_t i = 0; i < g.children.size(); ++i) {
        const int64_t c = g.children[i];
        if (const GistRecord* child = gist(c)) {
            g.leaves.insert(g.leaves.end(), child->leaves.begin(), child->leaves.end());
            g.leaf_phases.insert(g.leaf_phases.end(), child->leaf_phases.begin(),
                                 child->leaf_phases.end());
            child_embeddings.push_back(child->embedding);
        } else {
            g.leaves.push_back(c);
            g.leaf_phases.push_back(g.child_phases[i]);
            token_rows.push_back(engine_->token_embedding(ledger_.at(c).token_id));
            child_embeddings.push_back(token_rows.back());
        }
    }
    g.embedding = gist_net_->gist(child_embeddings, level);
    const std::string net = "gist net '" + std::string(gist_net_->name()) + "'";
    if (int(g.embedding.size()) != engine_->model().config.n_embd)
        shape_error("collapse",
                    net + " gave " + std::to_string(g.embedding.size()) + " floats, not n_embd");
    // Before anything changes: the gist is made for every layer of the group.
    require_finite(g.embedding, "collapse", layers.front(),
                   "the level " + std::to_string(level) + " gist of rows " + std::to_string(row) +
                       ".." + std::to_string(row + wlod_k_ - 1) + " made by " + net);
    g.phase = g.leaf_phases[size_t(central_leaf(int(g.leaves.size())))];

    last_attention_mass_.clear();
    const std::string piece = "<L" + std::to_string(level) + " " +
                              std::to_string(g.leaves.front()) + ".." +
                              std::to_string(g.leaves.back()) + ">";
    const int64_t id = ledger_.add(EntryKind::Gist, -1, piece, tick);
    const std::vector<int64_t> children = g.children;
    const int32_t phase = g.phase;
    gists_.emplace(id, std::move(g));
    const int64_t ids[] = {id};
    const int32_t phases[] = {phase};
    const ForwardOutput out = forward_records(row, ids, phases);
    require_finite(out, "collapse", "the gist row at row " + std::to_string(row));
    for (int l : layers) {
        for (int i = 0; i < wlod_k_; ++i) cache_->remove(l, row);
        cache_->insert(l, row, out.rows(l), 1);
    }
    between_blades("collapse");
    for (int l : layers) {
        LayerMap& m = maps_.edit(size_t(l), row);
        for (int i = 0; i < wlod_k_; ++i) m.remove(row);
        m.insert(row, ids, phases);
        for (int64_t c : children) ledger_.mark_collapsed(c, l, tick);
        ledger_.mark_live(id, l);
    }
    end_primitive(layers, "collapse");
}

void StateManager::collapse(const LayerSet& layer_set, int row, int level, int64_t tick) {
    changed();
    const std::vector<int> layers = resolve_layers(layer_set, "collapse");
    if (policy_ != RopePolicy::FinalIndex)
        shape_error("collapse", std::string("gists need the final_index RoPE policy, not ") +
                                    rope_policy_name(policy_));
    if (wlod_k_ == 0) shape_error("collapse", kNoWlodK);
    if (level != 1 && level != 2)
        shape_error("collapse", "level " + std::to_string(level) + " is not 1 or 2");
    for (int l : layers)
        if (row >= 0 && row < pinned_rows(l))
            throw StateError(
                StateErrorKind::PinnedRow, "collapse",
                "row " + std::to_string(row) + " of layer " + std::to_string(l) +
                    (row == 0 && starts_with_bos(l) ? " holds BOS" : " is a ring sink row") +
                    ": BOS and the attention sinks are never collapsed");
    std::vector<std::vector<int64_t>> block_rows;
    for (int l : layers) {
        const int n = check_block(l, row, level, "collapse");
        const auto& ids = layer_map(l).pos2ledger;
        block_rows.emplace_back(ids.begin() + row, ids.begin() + row + n);
    }
    for (const std::vector<int>& group : group_by_rows(layers, block_rows)) {
        if (level == 2) {
            // Token blocks first, from the last one back, so that earlier rows do not move.
            std::vector<int> token_blocks;
            int r = row;
            for (int b = 0; b < wlod_k_; ++b) {
                if (!gist(layer_map(group.front()).pos2ledger[size_t(r)]))
                    token_blocks.push_back(r);
                r += gist(layer_map(group.front()).pos2ledger[size_t(r)]) ? 1 : wlod_k_;
            }
            for (auto it = token_blocks.rbegin(); it != token_blocks.rend(); ++it)
                collapse_group(group, *it, 1, tick);
        }
        collapse_group(group, row, level, tick);
    }
}

void StateManager::expand_group(const std::vector<int>& layers, int row, int64_t tick) {
    const int64_t id = layer_map(layers.front()).pos2ledger[size_t(row)];
    const GistRecord& g = gists_.at(id);
    const ForwardOutput out = forward_records(row, g.children, g.child_phases);
    require_finite(out, "expand", "the rows a gist expands to at row " + std::to_string(row));
    const int n = int(g.children.size());
    last_attention_mass_.clear();
    for (int l : layers) {
        cache_->remove(l, row);
        cache_->insert(l, row, out.rows(l), n);
    }
    between_blades("expand");
    for (int l : layers) {
        LayerMap& m = maps_.edit(size_t(l), row);
        m.remove(row);
        m.insert(row, g.children, g.child_phases);
        ledger_.mark_removed(id, l, tick);
        for (int64_t c : g.children) ledger_.mark_live(c, l);
    }
    end_primitive(layers, "expand");
}

void StateManager::expand(const LayerSet& layer_set, int row, int64_t tick) {
    changed();
    const std::vector<int> layers = resolve_layers(layer_set, "expand");
    if (policy_ != RopePolicy::FinalIndex)
        shape_error("expand", std::string("gists need the final_index RoPE policy, not ") +
                                  rope_policy_name(policy_));
    std::vector<std::vector<int64_t>> held;
    for (int l : layers) {
        if (row < 0 || row >= rows(l))
            shape_error("expand", "row " + std::to_string(row) + " outside [0, " +
                                      std::to_string(rows(l)) + ") in layer " + std::to_string(l));
        const int64_t id = layer_map(l).pos2ledger[size_t(row)];
        if (!gist(id))
            shape_error("expand", "row " + std::to_string(row) + " in layer " + std::to_string(l) +
                                      " holds a token, not a gist");
        cache_->check_room(l, wlod_k_ - 1);
        held.push_back({id});
    }
    for (const std::vector<int>& group : group_by_rows(layers, held))
        expand_group(group, row, tick);
}

}  // namespace kvw
