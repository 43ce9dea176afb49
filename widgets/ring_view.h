#pragma once
#include <optional>
#include <vector>

#include "widgets/frame_view.h"
#include "widgets/view_legend.h"

namespace kvw {

// Where a ring slab slot sits in the window: its logical row, or -1 when the slot holds no row.
// (sinks first, then ring slot i holds logical row S + (i - head) mod (T - S)).
int ring_slot_row(const RingFrame& ring, int slot);
// The slab row the write pointer stands at (the ring slot after the sinks): the unit the read
// ranges are counted in, so that the view gives both in slab rows.
int ring_pointer_slab_row(const RingFrame& ring);
// The counters line above a layer's band; every position in it is a slab row, and it says so.
QString ring_counters_text(const RingFrame& ring, int layer);

// The ring layout per layer (docs/ARCHITECTURE.md §17): each layer's slab as a band of T slots
// (sinks, filled rows coloured by their largest K/V scale, free slots), a red cap over rows
// whose K/V had values clipped by their storage type (the saturation heat), the write pointer,
// the two ranges the last read assembled (tail part, head part) and the counters. A legend on
// top names every colour and mark, and hovering a slot says what it holds and which marks
// stand on it. Clicking a slot selects its row in every view. Empty under other layouts.
class RingView : public FrameView {
    Q_OBJECT
public:
    explicit RingView(QWidget* parent = nullptr);
    QString viewName() const override { return "ring"; }
    ViewTable table() const override;

    // The layer and slot under a point of the band canvas, for clicks (and tests).
    std::optional<std::pair<int, int>> slotAt(QPoint point) const;
    // What hovering `point` shows: a legend entry's meaning, a slot's contents and marks, or
    // what the counters line counts; empty elsewhere.
    QString toolTipAt(QPoint point) const;
    const ViewLegend& legend() const { return legend_; }

public slots:
    void setFrame(kvw::FramePtr frame) override;
    void setSelection(int layer, int row, int count = 1) override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool event(QEvent* event) override;

private:
    QRectF bandRect(int layer) const;
    QRectF countersRect(int layer) const;
    int labelHeight() const;  // the counters' lines above a band
    QString slotToolTip(int layer, int slot) const;
    // Flows the legend into the width and sets the height the bands need under it.
    void relayout();

    FramePtr frame_;
    ViewLegend legend_;
    double legend_height_ = 0;
    int counter_lines_ = 1;  // 2 when the counters do not fit the width on one line
    int selected_layer_ = -1;
    int selected_row_ = -1;
};

}  // namespace kvw
