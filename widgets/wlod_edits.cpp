#include "widgets/wlod_edits.h"

namespace kvw {

namespace {

// The node of `nodes` whose rows hold `row`, or null.
const WlodNode* node_at_row(const std::vector<WlodNode>& nodes, int row) {
    for (const WlodNode& n : nodes)
        if (row >= n.first_row && row < n.first_row + n.rows) return &n;
    return nullptr;
}

}  // namespace

WlodRowEdits wlod_row_edits(const Frame& frame, int layer, int row) {
    WlodRowEdits edits;
    if (layer < 0 || size_t(layer) >= frame.wlod.size() || row < 0 ||
        row >= frame.layers[size_t(layer)].rows())
        return edits;
    const WlodLayerFrame& tree = frame.wlod[size_t(layer)];
    const int pinned = frame.layers[size_t(layer)].pinned_rows;  // BOS, a ring's sinks
    if (const WlodNode* block = node_at_row(tree.levels[0], row);
        block && block->complete && block->how == InContext::AsTokens && block->first_row >= pinned)
        edits.collapse_l1 = Action{CollapseAction{block->first_row, 1}, {}};
    if (const WlodNode* block = node_at_row(tree.levels[2], row);
        block && block->complete && block->how == InContext::Expanded && block->first_row >= pinned)
        edits.collapse_l2 = Action{CollapseAction{block->first_row, 2}, {}};
    const int64_t id = frame.layers[size_t(layer)].pos2ledger[size_t(row)];
    if (id >= 0 && size_t(id) < frame.ledger.size() &&
        frame.ledger[size_t(id)].kind == EntryKind::Gist)
        edits.expand = Action{ExpandAction{row}, {}};
    return edits;
}

}  // namespace kvw
