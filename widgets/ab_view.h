#pragma once
#include "core/eval/ab_compare.h"
#include "widgets/frame_view.h"
#include "widgets/view_legend.h"

namespace kvw {

// The A/B mode (docs/ARCHITECTURE.md §12): the session's policy (A) against policy B on the same
// tokens, one band per layer over the ledger's records in time order, each record coloured by
// which side keeps it in that layer — A only, B only, both, neither — with both sides'
// perplexity of the tokens after the prompt above and each layer's overlap (Jaccard) at the
// band's end. Above the bands the view says what A, B and J are, in words that wrap to the
// view's width; the legend's entries, the side lines (NLLs) and each J explain themselves on
// hover. A pixel covering
// several records shows a difference before agreement.
class AbView : public FrameView {
    Q_OBJECT
public:
    explicit AbView(QWidget* parent = nullptr);
    QString viewName() const override { return "ab"; }
    ViewTable table() const override;
    QSize sizeHint() const override { return {160, 60}; }

    // Where the band of `layer` is drawn, and the x of record `id` in it (its left edge).
    QRectF bandRect(int layer) const;
    double recordX(int64_t id) const;
    // The lines above the bands (what A and B are, with each side's perplexity, and the RoPE
    // policy both were priced under) and the
    // rectangle they are drawn in, wrapped to the view's width; the legend says what J is.
    QStringList headerLines() const;
    QRectF headerRect() const { return header_rect_; }
    // What hovering `point` shows: a legend entry's meaning, a record's class, or how a
    // layer's J was counted; empty elsewhere.
    QString toolTipAt(QPointF point) const;
    const ViewLegend& legend() const { return legend_; }

    static QColor keptColor(AbKept kept);

public slots:
    void setFrame(kvw::FramePtr frame) override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool event(QEvent* event) override;

private:
    std::pair<int, int64_t> recordAt(QPointF p) const;  // layer -1: none
    QRectF overlapRect(int layer) const;
    // Flows the legend and wraps the header to the width; the bands take what is left.
    void relayout();

    std::shared_ptr<const AbFrame> ab_;
    ViewLegend legend_;
    QRectF header_rect_;
};

}  // namespace kvw
