#pragma once
#include <optional>
#include <vector>

#include "widgets/frame_view.h"

class QLabel;

namespace kvw {

// Where a ring slab slot sits in the window: its logical row, or -1 when the slot holds no row.
// (sinks first, then ring slot i holds logical row S + (i - head) mod (T - S)).
int ring_slot_row(const RingFrame& ring, int slot);

// The ring layout per layer (docs/ARCHITECTURE.md §17): each layer's slab as a band of T slots
// (sinks, filled rows coloured by their largest K/V scale, free slots), a red cap over rows
// whose K/V had values clipped by their storage type (the saturation heat), the write pointer,
// the two ranges the last read assembled (tail part, head part) and the counters. Clicking a slot
// selects its row in every view. Empty under other layouts.
class RingView : public FrameView {
    Q_OBJECT
public:
    explicit RingView(QWidget* parent = nullptr);
    QString viewName() const override { return "ring"; }
    ViewTable table() const override;

    // The layer and slot under a point of the band canvas, for clicks (and tests).
    std::optional<std::pair<int, int>> slotAt(QPoint point) const;

public slots:
    void setFrame(kvw::FramePtr frame) override;
    void setSelection(int layer, int row, int count = 1) override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRectF bandRect(int layer) const;

    FramePtr frame_;
    int selected_layer_ = -1;
    int selected_row_ = -1;
};

}  // namespace kvw
