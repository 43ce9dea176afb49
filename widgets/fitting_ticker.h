#pragma once
#include "qcustomplot.h"

namespace kvw {

// The step between tick labels of a whole-number axis (ticks, rows) that keeps the labels
// apart: the smallest of 1, 2, 5 × 10^k (at least `least_step`) at which two neighbouring
// labels, each `widest_label` pixels wide, leave `gap` pixels between them on an axis of
// `pixels` showing `range`. Without pixels (not laid out yet) a fifth of the range.
double fitting_tick_step(const QCPRange& range, double pixels, double widest_label, double gap,
                         double least_step = 1.0);

// A ticker whose step follows the axis' length and its labels' width (fitting_tick_step), so
// that "0 50 100 150" never runs together as "0 50100150" in a narrow panel, and a wide one
// gets more labels. QCustomPlot places ticks before it lays the plot out, so a plot whose
// axes changed length must be drawn once more: a view connects QCustomPlot::afterLayout to
// replot_if_stale().
class FittingTicker : public QCPAxisTicker {
public:
    explicit FittingTicker(QCPAxis* axis) : axis_(axis) {}

    // Whether the axis' length differs from the one the ticks were placed for.
    bool stale() const;
    // Queues another replot of `plot` when any of its axes with a FittingTicker is stale.
    static void replot_if_stale(QCustomPlot* plot);

protected:
    double getTickStep(const QCPRange& range) override;
    int getSubTickCount(double tick_step) override;

private:
    int axisPixels() const;

    QCPAxis* axis_;
    int placed_for_ = -1;  // the axis length the last ticks were placed for
};

}  // namespace kvw
