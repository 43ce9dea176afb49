#include "widgets/fitting_ticker.h"

#include <QFontMetrics>
#include <algorithm>
#include <cmath>

namespace kvw {

double fitting_tick_step(const QCPRange& range, double pixels, double widest_label, double gap,
                         double least_step) {
    const double span = std::max(range.size(), least_step);
    if (pixels <= 0) return std::max(least_step, span / 5);
    // Pixels per unit of the axis; a step must cover a label and the gap.
    const double needed = (widest_label + gap) * span / pixels;
    double magnitude = std::pow(10.0, std::floor(std::log10(std::max(needed, least_step))));
    for (;; magnitude *= 10)
        for (const double mantissa : {1.0, 2.0, 5.0}) {
            const double step = mantissa * magnitude;
            if (step >= least_step && step >= needed) return step;
        }
}

int FittingTicker::axisPixels() const {
    const QCPAxisRect* rect = axis_->axisRect();
    return axis_->orientation() == Qt::Horizontal ? rect->width() : rect->height();
}

double FittingTicker::getTickStep(const QCPRange& range) {
    placed_for_ = axisPixels();
    // The widest labels sit at the range's ends (whole numbers grow in digits outwards).
    const QFontMetrics metrics(axis_->tickLabelFont());
    const QLocale locale = axis_->parentPlot()->locale();
    const QChar format = axis_->numberFormat().isEmpty() ? QChar('g') : axis_->numberFormat()[0];
    double widest = 0;
    for (const double end : {range.lower, range.upper})
        widest = std::max<double>(
            widest, metrics.horizontalAdvance(
                        getTickLabel(std::round(end), locale, format, axis_->numberPrecision())));
    // Vertical axes stack their labels: the labels' height is what must fit.
    if (axis_->orientation() == Qt::Vertical) widest = metrics.height();
    // Half a line's height between two labels reads as two numbers, and leaves a panel a
    // hundred pixels wide two or three labels.
    return fitting_tick_step(range, placed_for_, widest, 0.5 * metrics.height());
}

int FittingTicker::getSubTickCount(double tick_step) {
    Q_UNUSED(tick_step);
    return 0;  // whole numbers: a sub tick would stand between two of them
}

bool FittingTicker::stale() const { return placed_for_ != axisPixels(); }

void FittingTicker::replot_if_stale(QCustomPlot* plot) {
    for (QCPAxisRect* rect : plot->axisRects())
        for (QCPAxis* axis : rect->axes())
            if (auto* t = dynamic_cast<FittingTicker*>(axis->ticker().data());
                t && axis->visible() && t->stale()) {
                plot->replot(QCustomPlot::rpQueuedReplot);
                return;
            }
}

}  // namespace kvw
