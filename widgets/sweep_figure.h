#pragma once
#include <QString>
#include <QVector>

class QCustomPlot;

namespace kvw {

// What kvw-plot-sweep and the window's sweep results (sweep_results_view.h) draw, read from either
// CSV kvw sweep writes: the one-text sweep's (a line per policy, the full cache dashed) or a grid's
// merged sweep.csv (a line per policy and whatever else the grid varied, with the 95 % bootstrap
// interval of its difference to the full cache as a band around it, and the full cache of each
// model dashed).
struct SweepSeries {
    QString name;
    QVector<double> rows, perplexity;  // sorted by rows
    QVector<double> low, high;         // the band; empty: none
};

struct SweepReference {
    QString name;  // "full cache", "full cache (MODEL)"
    double perplexity = 0;
};

struct SweepFigure {
    QVector<SweepSeries> series;  // in the CSV's order: their colours follow it
    QVector<SweepReference> full;
    QString title;
};

// Reads `path`; false with `error` naming the file and line when it is neither CSV.
bool read_sweep_figure(const QString& path, SweepFigure& out, QString& error);

// Draws `figure` on `plot` (cleared first): a line per series in Tableau 10 order, its band at
// alpha 50, each full cache black and dashed, the title on top, the legend inside.
void draw_sweep_figure(QCustomPlot& plot, const SweepFigure& figure);

}  // namespace kvw
