#pragma once
#include "widgets/frame_view.h"

class QAction;
class QLabel;
class QScrollArea;

namespace kvw {

class TokenChipCanvas;

// The live context of the selected layer as token chips coloured by brightness (dark → bright),
// wrapped in lines. Hover shows the row's record; a click selects a token, shift- or ctrl-click
// a second one; the buttons and the context menu delete the selection (from every layer, or
// from this one only), replace the pair with text or insert text before the token (the
// controller turns text into tokens and picks the layers that hold the same records), queued
// for the next tick or applied now.
class TokenStripView : public FrameView {
    Q_OBJECT
public:
    explicit TokenStripView(QWidget* parent = nullptr);
    QString viewName() const override { return "tokens"; }
    ViewTable table() const override;

    int layer() const { return layer_; }
    int firstRow() const { return first_; }
    int secondRow() const { return second_; }
    QString tokenToolTip(int row) const;
    TokenChipCanvas* canvas() const { return canvas_; }

    // What the buttons and the menu do once any text is typed (the dialogs end here).
    void requestDelete();
    void requestReplacePair(const QString& text);
    void requestInsertBefore(const QString& text);
    void setThisLayerOnly(bool on);
    void setApplyNow(bool on);

public slots:
    void setFrame(kvw::FramePtr frame) override;
    void setSelection(int layer, int row) override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuildChips();
    void clickChip(int row, Qt::KeyboardModifiers modifiers);
    void showMenu(int row, const QPoint& global_pos);
    void selectionChanged();

    FramePtr frame_;
    int layer_ = 0;
    int first_ = -1;
    int second_ = -1;
    QLabel* header_;
    QScrollArea* scroll_;
    TokenChipCanvas* canvas_;
    QAction* delete_;
    QAction* replace_;
    QAction* insert_;
    QAction* this_layer_;
    QAction* apply_now_;
};

}  // namespace kvw
