#pragma once
#include "core/eval/ab_compare.h"
#include "widgets/frame_view.h"

namespace kvw {

// The A/B mode (docs/ARCHITECTURE.md §12): the session's policy (A) against policy B on the same
// tokens, one band per layer over the ledger's records in time order, each record coloured by
// which side keeps it in that layer — A only, B only, both, neither — with both sides'
// perplexity of the tokens after the prompt above and each layer's overlap (Jaccard) at the
// band's end. A pixel covering several records shows a difference before agreement.
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

    static QColor keptColor(AbKept kept);
    // The line under the legend: each side's policy, budgets and perplexity, and the RoPE
    // policy both were priced under. Empty while A/B is off.
    QString summaryText() const;

public slots:
    void setFrame(kvw::FramePtr frame) override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    std::pair<int, int64_t> recordAt(QPointF p) const;  // layer -1: none

    std::shared_ptr<const AbFrame> ab_;
};

}  // namespace kvw
