#pragma once
#include <QColor>
#include <QMap>

#include "qcustomplot.h"

namespace kvw {

// The colour scales every view shares, so that a row has the same colour in the token strip and
// in the layer maps. Each is a list of stops on [0, 1], interpolated linearly in RGB (what
// QCPColorGradient::ciRGB does).
enum class ColorScale {
    Brightness,  // dark → bright (inferno): dim rows recede, bright rows stand out
    Sequence,    // ordered quantities: ledger id, age (viridis)
    Diverging,   // signed quantities around zero: phase skew (blue, white, red)
};

const QMap<double, QColor>& color_stops(ColorScale scale);
// The colour at t in [0, 1] (clamped).
QColor scale_color(ColorScale scale, double t);
// The same scale for a QCPColorMap; NaN cells are transparent so that they show the background.
QCPColorGradient color_gradient(ColorScale scale);

// The i-th colour of a qualitative palette (Tableau 10, repeating) for lines in one plot.
QColor series_color(int i);

// Drift is drawn on a log scale, where 0 (a freshly rebuilt cache) has no place: values below
// this floor are drawn at it, as the darkest colour.
constexpr double kDriftFloor = 1e-7;

// Black or white, whichever reads better on `background` (WCAG relative luminance).
QColor readable_text_color(const QColor& background);

// Invariant status cells: the words PASS/FAIL carry the meaning, the colour repeats it.
QColor pass_color();
QColor fail_color();
// An invariant that does not apply now (no policy keeps it, nothing to check): neither.
QColor not_applicable_color();
// Style sheet of inline error text (red and bold, so that it reads as an error in grey too).
QString error_style_sheet();

}  // namespace kvw
