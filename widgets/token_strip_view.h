#pragma once
#include "widgets/frame_view.h"

#include <string>
#include <unordered_map>

class QAction;
class QLabel;
class QScrollArea;

namespace kvw {

class TokenChipCanvas;

// The live context of the selected layer as token chips coloured by brightness (dark → bright),
// wrapped in lines. Hover shows the row's record; a click selects a token, shift- or ctrl-click
// a second one (a span selected elsewhere, a wLOD node's rows, shows as such and Delete takes
// all of it); the buttons and the context menu delete the selection (from every layer, or
// from this one only), replace the pair with text or insert text before the token (the
// controller turns text into tokens and picks the layers that hold the same records), queued
// for the next tick or applied now. With wLOD on, the menu also collapses the token's block
// into a level-1 gist, its level-2 block into a level-2 gist, or expands a gist row
// (wlod_edits.h), through the same path as the other edits.
class TokenStripView : public FrameView {
    Q_OBJECT
public:
    explicit TokenStripView(QWidget* parent = nullptr);
    QString viewName() const override { return "tokens"; }
    ViewTable table() const override;

    int layer() const { return layer_; }
    int firstRow() const { return first_; }
    int secondRow() const { return second_; }
    int selectedSpan() const { return span_; }
    QString tokenToolTip(int row) const;
    TokenChipCanvas* canvas() const { return canvas_; }

    // What the buttons and the menu do once any text is typed (the dialogs end here).
    void requestDelete();
    void requestReplacePair(const QString& text);
    void requestInsertBefore(const QString& text);
    // The wLOD edits the first selected row offers now, as the menu shows them.
    void requestCollapse(int level);
    void requestExpand();
    QAction* collapseL1Action() const { return collapse_l1_; }
    QAction* collapseL2Action() const { return collapse_l2_; }
    QAction* expandAction() const { return expand_; }
    void setThisLayerOnly(bool on);
    void setApplyNow(bool on);

public slots:
    void setFrame(kvw::FramePtr frame) override;
    void setSelection(int layer, int row, int count = 1) override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuildChips();
    // The width of the chip text of the row holding record `id`, remembered per piece: the same
    // pieces come back in every Frame, and the layout needs every row's width.
    int chipTextWidth(int64_t id);
    void clickChip(int row, Qt::KeyboardModifiers modifiers);
    void showMenu(int row, const QPoint& global_pos);
    void selectionChanged();

    FramePtr frame_;
    int layer_ = 0;
    int first_ = -1;
    int second_ = -1;
    int span_ = 1;  // rows [first_, first_ + span_) are selected (a span from the wLOD view)
    QLabel* header_;
    QScrollArea* scroll_;
    TokenChipCanvas* canvas_;
    QAction* delete_;
    QAction* replace_;
    QAction* insert_;
    QAction* collapse_l1_;
    QAction* collapse_l2_;
    QAction* expand_;
    QAction* this_layer_;
    QAction* apply_now_;
    std::unordered_map<std::string, int> piece_widths_;  // in the canvas's font
};

}  // namespace kvw
