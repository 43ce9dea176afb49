#pragma once
#include "widgets/frame_view.h"
#include "widgets/policy_roles.h"

namespace kvw {

// A selective cache layer by layer (docs/ARCHITECTURE.md §12): one band per layer over the
// ledger's records in time order, each record coloured by what it is to that layer — sink,
// high-value, window, kept (a policy without bookkeeping), evicted — and, at the band's end,
// the layer's eviction threshold (the weakest high-value score a record leaving the window must
// beat). Hovering names the record, its row and score or why it left; a click on a live record
// selects its row in that layer everywhere; the selected records are marked in every band.
class PolicyView : public FrameView {
    Q_OBJECT
public:
    explicit PolicyView(QWidget* parent = nullptr);
    QString viewName() const override { return "policy"; }
    ViewTable table() const override;
    QSize sizeHint() const override { return {160, 60}; }

    // Where the band of `layer` is drawn, and the x of record `id` in it (its left edge).
    QRectF bandRect(int layer) const;
    double recordX(int64_t id) const;

    static QColor roleColor(PolicyRole role);

public slots:
    void setFrame(kvw::FramePtr frame) override;
    void setSelection(int layer, int row, int count = 1) override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    // The (layer, record id) under a point; layer -1: none.
    std::pair<int, int64_t> recordAt(QPointF p) const;
    QString describe(int layer, int64_t id) const;

    FramePtr frame_;
    std::vector<std::vector<PolicyRole>> roles_;  // [layer][id]
    std::vector<int64_t> selected_ids_;           // the records of the selected rows
};

}  // namespace kvw
