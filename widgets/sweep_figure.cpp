#include "sweep_figure.h"

#include <qcustomplot.h>
#include <QFile>
#include <QFileInfo>
#include <QMap>
#include <QTextStream>
#include <algorithm>

#include "core/sweep/sweep_tables.h"

namespace kvw {

namespace {

constexpr const char* kOneTextHeader =
    "policy,sink,budget,window,rows_per_layer,ctx,scored_tokens,mean_nll,perplexity,rope";

// Appends (x, y[, low, high]) to the series `name`, keeping the series in first-seen order.
SweepSeries& series_named(SweepFigure& f, const QString& name) {
    for (SweepSeries& s : f.series)
        if (s.name == name) return s;
    f.series.append({name, {}, {}, {}, {}});
    return f.series.last();
}

void sort_by_rows(SweepSeries& s) {
    QVector<int> order(s.rows.size());
    for (int i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return s.rows[a] < s.rows[b]; });
    const auto pick = [&](const QVector<double>& v) {
        QVector<double> out;
        if (v.isEmpty()) return out;
        for (int i : order) out << v[i];
        return out;
    };
    s = {s.name, pick(s.rows), pick(s.perplexity), pick(s.low), pick(s.high)};
}

bool number(const QString& text, double& value) {
    bool ok = false;
    value = text.toDouble(&ok);
    return ok;
}

QString line_error(const QString& path, int line, const QString& what) {
    return QString("%1:%2: %3").arg(path).arg(line).arg(what);
}

// The one-text sweep: a line per policy, the full cache's row as the dashed reference.
bool read_one_text(QTextStream& in, const QString& path, SweepFigure& out, QString& error) {
    int ctx = 0;
    QString rope;
    for (int line = 2; !in.atEnd(); ++line) {
        const QStringList f = in.readLine().split(',');
        double ppl = 0, rows = 0;
        if (f.size() != 10 || !number(f[8], ppl) || (f[0] != "full" && !number(f[4], rows))) {
            error = line_error(path, line,
                               "expected 10 fields with numbers for rows_per_layer and perplexity");
            return false;
        }
        ctx = f[5].toInt();
        if (f[0] == "full") {
            out.full.append({"full cache", ppl});
            continue;
        }
        rope = f[9];
        SweepSeries& s = series_named(out, f[0]);
        s.rows << rows;
        s.perplexity << ppl;
    }
    out.title = QString(
                    "kvw sweep: perplexity against the rows each layer keeps (chunks of %1, "
                    "RoPE %2)")
                    .arg(ctx)
                    .arg(rope);
    return true;
}

// A grid's merged table: the key columns that vary name the lines.
bool read_grid(QTextStream& in, const QString& path, SweepFigure& out, QString& error) {
    enum { Model, Policy, Sink, Budget, Window, Rows, K, V, Layout, Rope, Ctx, Texts };
    constexpr int kFields = 18, kPerplexity = 14, kDelta = 15, kLow = 16, kHigh = 17;
    QVector<QStringList> rows;
    for (int line = 2; !in.atEnd(); ++line) {
        QStringList f = in.readLine().split(',');
        double ppl = 0, x = 0;
        if (f.size() != kFields || !number(f[kPerplexity], ppl) ||
            (f[Policy] != "full" && !number(f[Rows], x))) {
            error = line_error(path, line,
                               "expected 18 fields with numbers for rows_per_layer and "
                               "perplexity (a model name with a comma is not drawn)");
            return false;
        }
        rows << f;
    }
    // Which of the line-naming columns take more than one value in the table.
    QMap<int, QStringList> seen;
    for (const QStringList& f : rows)
        if (f[Policy] != "full")
            for (int c : {Model, Sink, Window, K, V, Layout, Rope})
                if (!seen[c].contains(f[c])) seen[c] << f[c];
    const auto varies = [&](int c) { return seen[c].size() > 1; };
    for (const QStringList& f : rows) {
        const double ppl = f[kPerplexity].toDouble();
        const QString model = QFileInfo(f[Model]).fileName();
        if (f[Policy] == "full") {  // one per model and K/V storage pair of the grid
            QString name = varies(Model) ? "full cache (" + model + ")" : "full cache";
            if (varies(K) || varies(V)) name += " · K " + f[K] + " V " + f[V];
            out.full.append({name, ppl});
            continue;
        }
        QString name = f[Policy];
        if (varies(Model)) name += " · " + model;
        if (varies(Sink)) name += " S " + f[Sink];
        if (varies(Window)) name += " W " + f[Window];
        if (varies(K) || varies(V)) name += " · K " + f[K] + " V " + f[V];
        if (varies(Layout)) name += " · " + f[Layout];
        if (varies(Rope)) name += " · " + f[Rope];
        SweepSeries& s = series_named(out, name);
        s.rows << f[Rows].toDouble();
        s.perplexity << ppl;
        double delta = 0, low = 0, high = 0;
        if (number(f[kDelta], delta) && number(f[kLow], low) && number(f[kHigh], high)) {
            // The interval is of the difference to the full cache: around the full cache's
            // perplexity, it is the band the policy's perplexity lies in.
            s.low << ppl - delta + low;
            s.high << ppl - delta + high;
        }
    }
    for (SweepSeries& s : out.series)
        if (s.low.size() != s.rows.size()) s.low.clear(), s.high.clear();
    out.title = QString(
                    "kvw sweep: perplexity against rows per layer (chunks of %1, %2 text(s); "
                    "band: 95 % bootstrap interval over texts)")
                    .arg(rows.isEmpty() ? QString() : rows[0][Ctx])
                    .arg(rows.isEmpty() ? QString() : rows[0][Texts]);
    return true;
}

}  // namespace

bool read_sweep_figure(const QString& path, SweepFigure& out, QString& error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        error = "cannot read " + path;
        return false;
    }
    QTextStream in(&file);
    const QString header = in.readLine();
    bool ok = false;
    if (header == kOneTextHeader)
        ok = read_one_text(in, path, out, error);
    else if (header == kvw::kSweepTableHeader)
        ok = read_grid(in, path, out, error);
    else
        error = path + ":1: not a kvw sweep CSV (expected the header " + kOneTextHeader +
                ", or a grid's " + kvw::kSweepTableHeader + ")";
    if (ok && out.series.isEmpty()) {
        error = path + ": no policy rows";
        ok = false;
    }
    for (SweepSeries& s : out.series) sort_by_rows(s);
    return ok;
}

void draw_sweep_figure(QCustomPlot& plot, const SweepFigure& figure) {
    plot.clearGraphs();
    plot.clearItems();
    if (plot.plotLayout()->rowCount() > 1) {
        plot.plotLayout()->remove(plot.plotLayout()->element(0, 0));
        plot.plotLayout()->simplify();
    }
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
}

}  // namespace kvw
