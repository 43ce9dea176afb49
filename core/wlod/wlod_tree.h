#pragma once
#include <cstdint>
#include <vector>

#include "core/state/state_manager.h"
#include "core/wlod/wlod_node.h"

namespace kvw {

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
