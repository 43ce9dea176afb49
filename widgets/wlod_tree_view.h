#pragma once
#include "widgets/frame_view.h"

namespace kvw {

// The wLOD tree of the selected layer as an icicle over time (ARCHITECTURE §14): level 2 on
// top, then level 1, then the level-0 blocks, each node as wide as its span of the timeline.
// Colour says how a node is in the working context (tokens, gist, covered, expanded); an
// incomplete node is drawn hollow. The last change's invalidation is drawn over it:
// hierarchically dirty nodes get a red frame, and every node the temporal invalidation reached
// (those ending after its first leaf) is hatched, from a red line at that leaf. A click selects
// all the node's rows in every view (a covered node: the gist row that stands for it).
class WlodTreeView : public FrameView {
    Q_OBJECT
public:
    explicit WlodTreeView(QWidget* parent = nullptr);
    QString viewName() const override { return "wlod"; }
    ViewTable table() const override;
    // Small, so that adding this dock leaves the window's other docks their sizes.
    QSize sizeHint() const override { return {160, 60}; }
    // Where the node (level, index) of the shown layer is drawn; empty when it is not.
    QRectF nodeCell(int level, int64_t index) const;

public slots:
    void setFrame(kvw::FramePtr frame) override;
    void setSelection(int layer, int row, int count = 1) override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    // The node under a point: (level, index), or level -1.
    std::pair<int, int64_t> nodeAt(QPointF p) const;
    // The cell of a node of `level` spanning leaves [first_leaf, end_leaf).
    QRectF nodeRect(int level, int64_t first_leaf, int64_t end_leaf) const;
    int64_t leafCount() const;

    FramePtr frame_;
    int layer_ = 0;
    int selected_row_ = -1;
    int selected_count_ = 1;
};

}  // namespace kvw
