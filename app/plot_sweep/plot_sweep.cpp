// kvw-plot-sweep CSV PNG: draws what `kvw sweep` wrote — perplexity against rows per layer, one
// line per policy, the full cache as a dashed line; for a grid's merged sweep.csv also the 95 %
// bootstrap interval as a band around each line (sweep_figure.h) — with QCustomPlot on the
// offscreen platform, in the workbench's look (Fusion, DejaVu Sans), so the same CSV gives the same
// picture. A Qt program of its own: kvw stays free of Qt and runs this from beside itself (`kvw
// sweep --plot`).
#include <qcustomplot.h>
#include <QApplication>
#include <algorithm>
#include <cstdio>

#include "sweep_figure.h"
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
    SweepFigure figure;
    QString error;
    if (!read_sweep_figure(argv[1], figure, error)) return fail(error);

    QCustomPlot plot;
    plot.resize(kWidth, kHeight);
    // Tableau 10, as the views use.
    const QColor colors[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b),
                             QColor(0xe1, 0x57, 0x59), QColor(0x76, 0xb7, 0xb2),
                             QColor(0x59, 0xa1, 0x4f), QColor(0xb0, 0x7a, 0xa1)};
    double lo = 1e300, hi = -1e300;
    for (int i = 0; i < figure.series.size(); ++i) {
        const SweepSeries& s = figure.series[i];
        const QColor color = colors[i % 6];
        lo = std::min(lo, s.rows.first());
        hi = std::max(hi, s.rows.last());
        if (!s.low.isEmpty()) {
            // The band: the low edge's graph filled up to the high edge's, both without a line.
            QCPGraph* low = plot.addGraph();
            QCPGraph* high = plot.addGraph();
            for (QCPGraph* edge : {low, high}) {
                edge->setPen(Qt::NoPen);
                edge->removeFromLegend();
            }
            low->setData(s.rows, s.low, true);
            high->setData(s.rows, s.high, true);
            QColor fill = color;
            fill.setAlpha(50);
            low->setBrush(fill);
            low->setChannelFillGraph(high);
        }
        QCPGraph* g = plot.addGraph();
        g->setName(s.name);
        g->setPen(QPen(color, 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
        g->setData(s.rows, s.perplexity, true);
    }
    const Qt::PenStyle dashes[] = {Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
    for (int i = 0; i < figure.full.size(); ++i) {
        QCPGraph* g = plot.addGraph();
        g->setName(figure.full[i].name);
        g->setPen(QPen(Qt::black, 1.5, dashes[i % 3]));
        g->setData({lo, hi}, {figure.full[i].perplexity, figure.full[i].perplexity}, true);
    }
    plot.plotLayout()->insertRow(0);
    plot.plotLayout()->addElement(0, 0, new QCPTextElement(&plot, figure.title));
    plot.xAxis->setLabel("rows per layer (S + B + W)");
    plot.yAxis->setLabel("perplexity");
    plot.legend->setVisible(true);
    plot.axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    plot.rescaleAxes();
    plot.xAxis->scaleRange(1.1);
    plot.yAxis->scaleRange(1.15);
    if (!plot.savePng(argv[2], kWidth, kHeight)) return fail(QString("cannot write ") + argv[2]);
    std::printf("wrote %s\n", argv[2]);
    return 0;
}
