#pragma once
#include "widgets/frame_view.h"

class QLabel;
class QTableWidget;

namespace kvw {

// A fork beside the session, in the window (ARCHITECTURE §16): Edit ▸ Fork at tick… (`fork TICK`)
// makes a second session on the same model from the trace up to that tick, driven in its own
// window; this dock compares the two at a glance. A line per side (tick, policy, rows of the
// layer, state hash) and, for the selected layer, the rows side by side, piece by piece, the rows
// where they differ marked. The session's side is what the window shows (a past tick too).
class ForkView : public FrameView {
    Q_OBJECT
public:
    explicit ForkView(QWidget* parent = nullptr);
    QString viewName() const override { return "fork"; }
    // One row per row of the compared layer: row, session_id, session_piece, fork_id,
    // fork_piece, same (ids and pieces empty where a side has no such row).
    ViewTable table() const override;
    QSize sizeHint() const override { return {240, 80}; }

public slots:
    void setFrame(kvw::FramePtr frame) override;
    // The fork's Frame, from the fork's controller; null: no fork.
    void setForkFrame(kvw::FramePtr fork);
    void setSelection(int layer, int row, int count = 1) override;

private:
    void refresh();

    QLabel* summary_;
    QTableWidget* rows_;
    FramePtr session_;
    FramePtr fork_;
    int layer_ = 0;
};

}  // namespace kvw
