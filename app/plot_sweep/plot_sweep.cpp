// kvw-plot-sweep CSV PNG: draws what `kvw sweep` wrote — perplexity against rows per layer, one
// line per policy, the full cache as a dashed line — with QCustomPlot on the offscreen platform,
// in the workbench's look (Fusion, DejaVu Sans), so the same CSV gives the same picture. A Qt
// program of its own: kvw stays free of Qt and runs this from beside itself (`kvw sweep --plot`).
#include <algorithm>

#include <qcustomplot.h>
#include <QApplication>
#include <QFile>
#include <QMap>
#include <QTextStream>
#include <cstdio>

#include "widgets/workbench_look.h"

namespace {

constexpr const char* kHeader =
    "policy,sink,budget,window,rows_per_layer,ctx,scored_tokens,mean_nll,perplexity,rope";
constexpr int kWidth = 800, kHeight = 480;

struct Sweep {
    QMap<QString, QVector<QPair<double, double>>> points;  // policy -> (rows, perplexity)
    QStringList order;                                     // policies as the CSV lists them
    double full = 0.0;                                     // the full cache's perplexity; 0: none
    int ctx = 0;
    QString rope;  // the RoPE policy the policies were priced under
};

int fail(const QString& message) {
    std::fprintf(stderr, "kvw-plot-sweep: %s\n", qPrintable(message));
    return 1;
}

// The CSV `kvw sweep` writes; an error names the file and the line.
bool read_sweep(const QString& path, Sweep& out, QString& error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        error = "cannot read " + path;
        return false;
    }
    QTextStream in(&file);
    if (in.readLine() != kHeader) {
        error = path + ":1: not a kvw sweep CSV (expected the header " + kHeader + ")";
        return false;
    }
    for (int line = 2; !in.atEnd(); ++line) {
        const QStringList f = in.readLine().split(',');
        bool rows_ok = false, ppl_ok = false;
        const double ppl = f.size() == 10 ? f[8].toDouble(&ppl_ok) : 0.0;
        const double rows = f.size() == 10 ? f[4].toDouble(&rows_ok) : 0.0;
        if (!ppl_ok || (f[0] != "full" && !rows_ok)) {
            error = QString(
                        "%1:%2: expected 10 fields with numbers for rows_per_layer and "
                        "perplexity")
                        .arg(path)
                        .arg(line);
            return false;
        }
        out.ctx = f[5].toInt();
        if (f[0] == "full") {
            out.full = ppl;
            continue;
        }
        out.rope = f[9];
        if (!out.points.contains(f[0])) out.order << f[0];
        out.points[f[0]].append({rows, ppl});
    }
    if (out.order.isEmpty()) {
        error = path + ": no policy rows";
        return false;
    }
    return true;
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
    Sweep sweep;
    QString error;
    if (!read_sweep(argv[1], sweep, error)) return fail(error);

    QCustomPlot plot;
    plot.resize(kWidth, kHeight);
    // Tableau 10, as the views use.
    const QColor colors[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b),
                             QColor(0xe1, 0x57, 0x59), QColor(0x76, 0xb7, 0xb2),
                             QColor(0x59, 0xa1, 0x4f), QColor(0xb0, 0x7a, 0xa1)};
    double lo = 1e300, hi = -1e300;
    for (int i = 0; i < sweep.order.size(); ++i) {
        QVector<QPair<double, double>> pts = sweep.points[sweep.order[i]];
        std::sort(pts.begin(), pts.end());
        QVector<double> x, y;
        for (const auto& [rows, ppl] : pts) {
            x << rows;
            y << ppl;
            lo = std::min(lo, rows);
            hi = std::max(hi, rows);
        }
        QCPGraph* g = plot.addGraph();
        g->setName(sweep.order[i]);
        g->setPen(QPen(colors[i % 6], 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
        g->setData(x, y, true);
    }
    if (sweep.full > 0) {
        QCPGraph* g = plot.addGraph();
        g->setName("full cache");
        g->setPen(QPen(Qt::black, 1.5, Qt::DashLine));
        g->setData({lo, hi}, {sweep.full, sweep.full}, true);
    }
    plot.plotLayout()->insertRow(0);
    plot.plotLayout()->addElement(
        0, 0,
        new QCPTextElement(&plot, QString("kvw sweep: perplexity against the rows each layer keeps "
                                          "(chunks of %1, RoPE %2)")
                                      .arg(sweep.ctx)
                                      .arg(sweep.rope)));
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
