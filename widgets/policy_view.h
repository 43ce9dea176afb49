#pragma once
#include "widgets/frame_view.h"
#include "widgets/policy_roles.h"

#include <optional>

namespace kvw {

// A selective cache layer by layer (docs/ARCHITECTURE.md §12): one band per layer over the
// ledger's records in time order, each record coloured by what it is to that layer — sink,
// high-value, window, kept (a policy without bookkeeping), evicted — and, at the band's end,
// the layer's eviction threshold (the weakest high-value score a record leaving the window must
// beat). Hovering names the record, its row and score or why it left; a click on a live record
// selects its row in that layer everywhere; the selected records are marked in every band.
// Long contexts (ARCHITECTURE §7.1): the bands show a window of the records, all of them until
// the wheel zooms in about the mouse; a drag pans and a double click shows every record again.
// Only the window's records are read, pooled to the band's width in pixels, so a repaint costs
// what the view shows; a row selected elsewhere outside the window brings it into view. The
// exported table has every record whatever the window.
class PolicyView : public FrameView {
    Q_OBJECT
public:
    explicit PolicyView(QWidget* parent = nullptr);
    QString viewName() const override { return "policy"; }
    ViewTable table() const override;
    QSize sizeHint() const override { return {160, 60}; }

    // Where the band of `layer` is drawn, and the x of record `id` in it (its left edge; outside
    // the band for a record outside the window).
    QRectF bandRect(int layer) const;
    double recordX(int64_t id) const;

    // Records [first, last) the bands show: every record while not zoomed in.
    RowWindow visibleRecords() const { return window_; }
    // Shows records [first, last) (moved into the ledger, at least kMinRecords wide); every
    // record again when the window covers the ledger.
    void setVisibleRecords(int first, int last);
    // Divides the shown width by `factor` (> 1 zooms in) about record `centre`.
    void zoomBy(double factor, double centre);
    void fitRecords();
    bool zoomedIn() const { return zoomed_; }
    static constexpr int kMinRecords = 16;

    // What the bands draw, [layer][cell]: the window's roles pooled to the band's pixel width.
    const PolicyRoles& shownCells() const { return cells_; }

    static QColor roleColor(PolicyRole role);

public slots:
    void setFrame(kvw::FramePtr frame) override;
    void setSelection(int layer, int row, int count = 1) override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    bool event(QEvent* event) override;

private:
    int layerCount() const;
    int recordCount() const;
    // Pools the window's roles into cells_ for the bands' width.
    void refill();
    // The (layer, record id) under a point; layer -1: none.
    std::pair<int, int64_t> recordAt(QPointF p) const;
    QString describe(int layer, int64_t id) const;

    FramePtr frame_;
    RowWindow window_{0, 0};  // within the ledger
    bool zoomed_ = false;     // window_ is a part of the ledger (else: all of it)
    PolicyRoles cells_;
    std::vector<int64_t> selected_ids_;  // the records of the selected rows
    std::optional<QPointF> press_;       // where the left button went down
    RowWindow press_window_;             // the window then: a drag moves it from there
    bool dragged_ = false;               // the press became a drag: no click on release
};

}  // namespace kvw
