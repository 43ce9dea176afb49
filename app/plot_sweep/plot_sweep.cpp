// kvw-plot-sweep CSV PNG: draws what `kvw sweep` wrote — perplexity against rows per layer, one
// line per policy, the full cache as a dashed line; for a grid's merged sweep.csv also the 95 %
// bootstrap interval as a band around each line (sweep_figure.h) — with QCustomPlot on the
// offscreen platform, in the workbench's look (Fusion, DejaVu Sans), so the same CSV gives the same
// picture. A Qt program of its own: kvw stays free of Qt and runs this from beside itself (`kvw
// sweep --plot`).
#include <qcustomplot.h>
#include <QApplication>
#include <cstdio>

#include "widgets/sweep_figure.h"
#include "widgets/workbench_look.h"

namespace {

constexpr int kWidth = 800, kHeight = 480;

int fail(const QString& message) {
    std::fprintf(stderr, "kvw-plot-sweep: %s\n", qPrintable(message));
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    kvw::apply_workbench_look(app);
    if (argc != 3) {
        std::fprintf(stderr, "usage: kvw-plot-sweep SWEEP.csv OUT.png\n");
        return 2;
    }
    kvw::SweepFigure figure;
    QString error;
    if (!kvw::read_sweep_figure(argv[1], figure, error)) return fail(error);

    QCustomPlot plot;
    plot.resize(kWidth, kHeight);
    kvw::draw_sweep_figure(plot, figure);
    if (!plot.savePng(argv[2], kWidth, kHeight)) return fail(QString("cannot write ") + argv[2]);
    std::printf("wrote %s\n", argv[2]);
    return 0;
}
