#pragma once
#include <cstdint>
#include <vector>

#include "core/state/state_manager.h"

namespace kvw {

// How a node's span is in the working context (ARCHITECTURE §14).
enum class InContext : uint8_t {
    AsTokens,  // level 0: its K tokens are rows
    AsGist,    // level 1, 2: one gist row stands for its span
    Covered,   // an ancestor's gist row stands for it
    Expanded,  // level 1, 2: shown in finer detail (its descendants are rows)
};
const char* in_context_name(InContext how);

struct WlodNode {
    int level = 0;           // 0: a block of K tokens; 1: that block's gist; 2: K blocks' gist
    int64_t index = 0;       // among the nodes of its level, in time order
    int64_t first_leaf = 0;  // its span on the timeline: leaves [first_leaf, end_leaf)
    int64_t end_leaf = 0;
    bool complete = false;  // the span holds all K (level 0, 1) or K² (level 2) leaves
    InContext how = InContext::AsTokens;
    int first_row = -1;  // the working-context rows its span occupies
    int rows = 0;
    int64_t gist_id = -1;     // the gist record whose row shows it, when AsGist
    std::vector<float> gist;  // its gist vector, when computed (WlodContext)
    double t_center = 0.0;    // phase of its central leaf: its gist's RoPE position
    double sigma = 0.0;       // standard deviation of its leaves' phases
    bool dirty_hierarchical = false;
    bool dirty_temporal = false;
};

// The wLOD tree over one layer's timeline: the layer's rows with each gist row replaced by the
// token records it covers (the leaves). Level-0 nodes tile the timeline in blocks of K leaves,
// level-1 nodes share their spans, level-2 nodes cover K blocks; the last node of a level may
// be incomplete. Built from the state alone; WlodContext adds gist vectors and dirty flags.
class WlodTree {
public:
    static WlodTree build(const StateManager& state, int layer);

    int k() const { return k_; }
    int layer() const { return layer_; }
    const std::vector<int64_t>& leaves() const { return leaves_; }  // token record ids
    const std::vector<int32_t>& leaf_phases() const { return leaf_phases_; }
    const std::vector<WlodNode>& level(int l) const { return levels_[size_t(l)]; }
    std::vector<WlodNode>& level(int l) { return levels_[size_t(l)]; }
    // The working-context row that holds (or stands for) leaf i.
    int row_of_leaf(int64_t i) const { return row_of_leaf_[size_t(i)]; }
    // The first leaf of working-context row r (leaves().size() for r == rows).
    int64_t first_leaf_of_row(int r) const { return row_first_leaf_[size_t(r)]; }
    int rows() const { return int(row_first_leaf_.size()) - 1; }

private:
    int k_ = 0;
    int layer_ = 0;
    std::vector<int64_t> leaves_;
    std::vector<int32_t> leaf_phases_;
    std::vector<int> row_of_leaf_;
    std::vector<int64_t> row_first_leaf_;
    std::vector<WlodNode> levels_[3];
};

}  // namespace kvw
