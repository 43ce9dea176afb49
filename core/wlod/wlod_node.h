#pragma once
// One node of a layer's wLOD tree (ARCHITECTURE §14), a plain value the Frame carries.
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

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

// A node by (level, index).
using NodeKey = std::pair<int, int64_t>;

// What the last edit invalidated in one layer (shown by the wLOD view).
struct Invalidation {
    std::set<NodeKey> hierarchical;  // leaves changed there, and their ancestors
    int64_t temporal_from = -1;      // every node ending after this leaf; -1: none
};

}  // namespace kvw
