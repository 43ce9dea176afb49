#pragma once
#include <vector>

#include "widgets/frame_view.h"

class QLabel;
class QTableWidget;

namespace kvw {

// Every named invariant of the coupled state: PASS/FAIL, the tick after which it last held and,
// on failure, the layer, row and values that break it; one that does not apply now (a budget
// no running policy keeps, scales that f32 storage does not have) is N/A in a neutral colour
// with the reason. Failures are listed first, those that do not apply last. Below, the drift
// summary and the K/V storage counters (saturated values, NaN inputs, bad scales per layer).
// Clicking a failing invariant selects its row everywhere.
class InvariantsPanel : public FrameView {
    Q_OBJECT
public:
    explicit InvariantsPanel(QWidget* parent = nullptr);
    QString viewName() const override { return "invariants"; }
    ViewTable table() const override;

    enum Column { Name, Status, LastHeld, Layer, Row, Detail };

public slots:
    void setFrame(kvw::FramePtr frame) override;

private:
    void selectFailure(int table_row);

    FramePtr frame_;
    std::vector<size_t> order_;  // [table row]: the index in frame_->invariants
    QLabel* summary_;
    QTableWidget* table_;
    QLabel* drift_;
    QLabel* storage_;
};

// The panel's order of `list`: indices of the failing invariants, then of those that hold,
// then of those that do not apply, each group in the order of the list.
std::vector<size_t> invariant_display_order(const std::vector<InvariantStatus>& list);
// "Drift (each layer against a fresh pass over its own tokens): not measured ..." / "…: max
// 3.2e-04, tolerance 0.0078 (K bf16 / V f32 rounding), first diverging layer 5".
QString drift_summary_text(const Frame& frame);
// The cache's K / V storage types and, per layer where any is non-zero, the saturated values,
// NaN inputs and non-finite scales (docs/ARCHITECTURE.md §13).
QString storage_summary_text(const Frame& frame);

}  // namespace kvw
