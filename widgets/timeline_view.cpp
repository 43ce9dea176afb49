#include "widgets/timeline_view.h"

#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "qcustomplot.h"
#include "widgets/fitting_ticker.h"
#include "widgets/view_colors.h"
#include "widgets/workbench_look.h"

namespace kvw {

namespace {

// Layer-aggregate lines for many layers: min, mean, max of the live rows.
struct RowStats {
    double min, mean, max;
};

RowStats row_stats(const std::vector<int>& rows) {
    if (rows.empty()) return {0, 0, 0};
    const auto [lo, hi] = std::minmax_element(rows.begin(), rows.end());
    double sum = 0;
    for (int r : rows) sum += r;
    return {double(*lo), sum / double(rows.size()), double(*hi)};
}

void add_point(QCPGraph* graph, double key, double value) {
    graph->data()->remove(key);  // a frame at the same tick replaces the point
    if (!std::isnan(value)) graph->addData(key, value);
}

}  // namespace

TimelineView::TimelineView(QWidget* parent) : FrameView(parent), plot_(new QCustomPlot(this)) {
    plot_->setObjectName("plot");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);

    plot_->setAutoAddPlottableToLegend(false);
    // One row of legends, then the panels: legends sized to their entries never squeeze a
    // panel's column.
    QCPLayoutGrid* layout_grid = plot_->plotLayout();
    layout_grid->clear();
    legend_row_ = new QCPLayoutGrid;
    panel_grid_ = new QCPLayoutGrid;
    layout_grid->addElement(0, 0, legend_row_);
    layout_grid->addElement(1, 0, panel_grid_);
    layout_grid->setRowStretchFactor(0, 0.001);
    for (QCPMarginGroup*& group : column_margins_) group = new QCPMarginGroup(plot_);
    // Single-line panels need no legend: the axis label names the line.
    // As short as "mean brightness": a panel of a docked view at 1,024 x 700 is ~85 px tall.
    addPanel(wall_clock_hidden() ? "ms (hidden)" : "tick ms", true);
    addPanel("rows", true);
    // Rows are whole numbers: no 12.5 on their axis.
    auto* whole_rows = new QCPAxisTickerFixed;
    whole_rows->setTickStep(1);
    whole_rows->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    whole_rows->setTickCount(3);
    panels_[1]->axis(QCPAxis::atLeft)->setTicker(QSharedPointer<QCPAxisTicker>(whole_rows));
    addPanel("mean brightness", false);
    addPanel("max drift", false);
    // A spacer after the legends keeps them together on the left.
    legend_row_->addElement(0, legend_row_->columnCount(), new QCPLayoutElement(plot_));
    for (int c = 0; c + 1 < legend_row_->columnCount(); ++c)
        legend_row_->setColumnStretchFactor(c, 0.001);
    arrange(2);

    const char* steps[] = {"sample", "brightness", "propose", "apply", "total"};
    for (int i = 0; i < 5; ++i) latency_.push_back(addGraph(0, steps[i], series_color(i)));
    latency_.back()->setPen(QPen(Qt::black, 1.5));
    // The single lines in the text colour: in a layer's colour they read as that layer's.
    brightness_ = addGraph(2, "mean brightness", palette().windowText().color());
    drift_ = addGraph(3, "max drift", palette().windowText().color());
    drift_->setLineStyle(QCPGraph::lsNone);
    drift_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
    QCPAxis* drift_axis = panels_[3]->axis(QCPAxis::atLeft);
    drift_axis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> log_ticks(new QCPAxisTickerLog);
    log_ticks->setTickCount(2);  // the panel is short: a label every few decades
    log_ticks->setSubTickCount(0);
    drift_axis->setTicker(log_ticks);
    drift_axis->setNumberFormat("eb");
    drift_axis->setNumberPrecision(0);
    drift_axis->setRange(kDriftFloor / 2, 1);

    for (QCPAxisRect* panel : panels_) {
        auto* marker = new QCPItemStraightLine(plot_);
        marker->setClipAxisRect(panel);
        for (QCPItemPosition* end : {marker->point1, marker->point2}) {
            end->setAxes(panel->axis(QCPAxis::atBottom), panel->axis(QCPAxis::atLeft));
            end->setAxisRect(panel);  // y as a fraction of the panel: the drift axis is log
            end->setTypeY(QCPItemPosition::ptAxisRectRatio);
        }
        marker->setPen(QPen(QColor(0xd0, 0x8c, 0x00), 2, Qt::DashLine));
        marker->setVisible(false);
        markers_.push_back(marker);
    }
    connect(plot_, &QCustomPlot::mousePress, this,
            [this](QMouseEvent* event) { pickTick(event->pos()); });
    connect(plot_, &QCustomPlot::afterLayout, this,
            [this] { FittingTicker::replot_if_stale(plot_); });
}

void TimelineView::setShownTick(qint64 tick) {
    shown_tick_ = tick;
    for (QCPItemStraightLine* marker : markers_) {
        marker->point1->setCoords(double(tick), 0);
        marker->point2->setCoords(double(tick), 1);
        marker->setVisible(tick >= 0);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::pickTick(const QPoint& at) {
    if (history_.points().empty()) return;
    for (QCPAxisRect* panel : panels_) {
        if (!panel->rect().contains(at)) continue;
        const double key = panel->axis(QCPAxis::atBottom)->pixelToCoord(at.x());
        const qint64 tick = std::llround(key);
        if (tick >= history_.points().front().tick && tick <= history_.points().back().tick)
            emit tickChosen(tick);
        return;
    }
}

void TimelineView::addPanel(const QString& label, bool with_legend) {
    QCPLegend* legend = nullptr;
    if (with_legend) {
        legend = new QCPLegend;
        legend_row_->addElement(0, legend_row_->columnCount(), legend);
        legend->setLayer("legend");
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
        legend->setWrap(5);
        legend->setIconSize(20, 10);  // small icons: both legends fit one line of a docked view
        legend->setBorderPen(Qt::NoPen);
        legend->setBrush(Qt::NoBrush);
        legend->setMargins(QMargins(4, 2, 12, 0));
    }
    auto* panel = new QCPAxisRect(plot_);
    panel_grid_->addElement(0, panel_grid_->columnCount(), panel);  // arrange() places it
    // The invisible top axis needs no room: panels sit close under each other.
    panel->setAutoMargins(QCP::msLeft | QCP::msRight | QCP::msBottom);
    panel->setMargins(QMargins(0, 6, 0, 0));
    panel->axis(QCPAxis::atLeft)->setLabel(label);
    panel->axis(QCPAxis::atLeft)->ticker()->setTickCount(3);  // short panels: few labels
    // Ticks are whole numbers, labelled as far apart as the panel's width lets them be.
    QCPAxis* x = panel->axis(QCPAxis::atBottom);
    x->setTicker(QSharedPointer<QCPAxisTicker>(new FittingTicker(x)));
    panels_.push_back(panel);
    legends_.push_back(legend);
}

void TimelineView::arrange(int columns) {
    columns_ = columns;
    for (QCPAxisRect* panel : panels_) panel_grid_->take(panel);
    panel_grid_->simplify();
    const int last_row = (int(panels_.size()) - 1) / columns;
    for (size_t i = 0; i < panels_.size(); ++i) {
        const int row = int(i) / columns, column = int(i) % columns;
        panel_grid_->addElement(row, column, panels_[i]);
        panels_[i]->setMarginGroup(QCP::msLeft | QCP::msRight, column_margins_[size_t(column)]);
        QCPAxis* x = panels_[i]->axis(QCPAxis::atBottom);
        x->setTickLabels(row == last_row);
        x->setLabel(row == last_row ? "tick" : "");
    }
}

void TimelineView::resizeEvent(QResizeEvent* event) {
    fitLayout();
    FrameView::resizeEvent(event);
}

void TimelineView::fitLayout() {
    const int wrap_was = legend_wrap_;
    wrapLegendsToFit(width());
    // Docked wide and short (under the window), four panels side by side; otherwise two by two,
    // so that no panel gets a sliver.
    const int columns = width() >= 3 * height() || height() < minimumHeightFor(2) ? 4 : 2;
    plot_->setMinimumHeight(minimumHeightFor(columns));
    if (legend_wrap_ == wrap_was && columns == columns_) return;
    arrange(columns);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::setLegendWrap(int wrap) {
    legend_wrap_ = wrap;
    for (QCPLegend* legend : legends_)
        if (legend) {
            legend->setWrap(wrap);
            legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // re-lays the entries
        }
}

void TimelineView::wrapLegendsToFit(int width) {
    // QCustomPlot squeezes legends wider than the row and cuts their names ("brightnes",
    // "layer C" in the docked view at 1,024 x 700): wrap onto more lines until they fit.
    for (int wrap = 5; wrap >= 1; --wrap) {
        setLegendWrap(wrap);
        int needed = 0;
        for (QCPLegend* legend : legends_)
            if (legend) needed += legend->minimumOuterSizeHint().width();
        if (needed <= width) return;
    }
}

int TimelineView::minimumHeightFor(int columns) const {
    // Each panel at least as tall as its axis title is long (a shorter one clips "mean
    // brightness"), under the legends, above the tick labels and "tick": the dock scrolls below
    // that, as every view's does.
    int panel = 0;
    for (QCPAxisRect* p : panels_) {
        const QCPAxis* y = p->axis(QCPAxis::atLeft);
        panel = std::max(panel, QFontMetrics(y->labelFont()).horizontalAdvance(y->label()) + 8);
    }
    const QCPAxis* x = panels_.front()->axis(QCPAxis::atBottom);
    const int below = QFontMetrics(x->tickLabelFont()).height() +
                      QFontMetrics(x->labelFont()).height() + x->tickLabelPadding() +
                      x->labelPadding() + 8;
    const int rows = (int(panels_.size()) + columns - 1) / columns;
    return legend_row_->minimumOuterSizeHint().height() + rows * panel + below;
}

QCPGraph* TimelineView::addGraph(int panel, const QString& name, const QColor& color) {
    QCPAxisRect* rect = panels_[size_t(panel)];
    QCPGraph* graph = plot_->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    graph->setName(name);
    graph->setPen(QPen(color, 1.5));
    if (QCPLegend* legend = legends_[size_t(panel)]) graph->addToLegend(legend);
    return graph;
}

void TimelineView::makeRowGraphs(int layers) {
    for (QCPGraph* g : rows_) {
        // removeGraph() takes a graph out of the plot's default legend only, and this view
        // draws its own legends: left there, the entry would point at a deleted graph.
        g->removeFromLegend(legends_[1]);
        plot_->removeGraph(g);
    }
    rows_.clear();
    row_graph_layers_ = layers;
    if (layers <= kMaxLayerLines) {
        for (int l = 0; l < layers; ++l)
            rows_.push_back(addGraph(1, QString("layer %1").arg(l), series_color(l)));
        return;
    }
    rows_.push_back(addGraph(1, "min", series_color(0)));
    rows_.push_back(addGraph(1, "mean", Qt::black));
    rows_.push_back(addGraph(1, "max", series_color(2)));
    // The band between min and max shows how far the layers' lengths spread.
    rows_[0]->setBrush(QColor(78, 121, 167, 50));
    rows_[0]->setChannelFillGraph(rows_[2]);
}

void TimelineView::plotPoint(const TimelinePoint& p) {
    const double key = double(p.tick);
    const StepTimings& t = p.timings;
    const double steps[] = {t.sample_ms, t.brightness_ms, t.propose_ms, t.apply_ms, t.total_ms};
    // Script runs leave the wall-clock panel empty: its values differ from run to run.
    if (!wall_clock_hidden())
        for (int i = 0; i < 5; ++i) add_point(latency_[size_t(i)], key, steps[i]);
    if (int(p.rows.size()) <= kMaxLayerLines) {
        for (size_t l = 0; l < p.rows.size(); ++l) add_point(rows_[l], key, p.rows[l]);
    } else {
        const RowStats s = row_stats(p.rows);
        add_point(rows_[0], key, s.min);
        add_point(rows_[1], key, s.mean);
        add_point(rows_[2], key, s.max);
    }
    add_point(brightness_, key, p.mean_brightness);
    // Every measurement of the tick; 0 (exact) sits on the floor of the log axis.
    drift_->data()->remove(key - 0.5, key + 0.5);  // remove(key) takes one point only
    for (double d : p.drifts) drift_->addData(key, std::max(d, kDriftFloor));
}

void TimelineView::replotAll() {
    for (int i = 0; i < plot_->graphCount(); ++i) plot_->graph(i)->data()->clear();
    for (const TimelinePoint& p : history_.points()) plotPoint(p);
}

void TimelineView::rescale() {
    const double first = double(history_.points().front().tick);
    const double last = double(history_.points().back().tick);
    for (QCPAxisRect* panel : panels_) {
        // Every panel shows the same ticks; a single tick still gets a visible span around it.
        panel->axis(QCPAxis::atBottom)->setRange(first - 0.5, std::max(last, first + 1) + 0.5);
        QCPAxis* y = panel->axis(QCPAxis::atLeft);
        if (y->scaleType() == QCPAxis::stLogarithmic) {
            bool found = false;
            const QCPRange r = drift_->getValueRange(found, QCP::sdPositive);
            // Half a step below the floor, so that an exact (0) measurement shows on it.
            y->setRange(kDriftFloor / 2, found ? std::max(r.upper * 2, 1e-3) : 1.0);
            continue;
        }
        bool found = false;
        QCPRange range;
        for (QCPAbstractPlottable* p : panel->plottables()) {
            bool f = false;
            const QCPRange r = p->getValueRange(f);
            if (!f) continue;
            range = found ? QCPRange(std::min(range.lower, r.lower), std::max(range.upper, r.upper))
                          : r;
            found = true;
        }
        // From zero, so that a flat line does not look like a wild swing; 10 % headroom.
        y->setRange(0, found && range.upper > 0 ? range.upper * 1.1 : 1.0);
    }
}

void TimelineView::setFrame(FramePtr frame) {
    const TimelineHistory::Change change = history_.add(*frame);
    const TimelinePoint& p = history_.points().back();
    const int layers = int(p.rows.size());
    const bool row_graphs_fit = layers == row_graph_layers_;
    if (!row_graphs_fit) {
        makeRowGraphs(layers);
        fitLayout();  // the layers' legend entries came or went
    }
    if (change == TimelineHistory::Change::Reset || change == TimelineHistory::Change::Truncated ||
        !row_graphs_fit) {
        replotAll();
    } else {
        plotPoint(p);
        const double first = double(history_.points().front().tick);
        for (int i = 0; i < plot_->graphCount(); ++i) plot_->graph(i)->data()->removeBefore(first);
    }
    rescale();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::setHistory(TimelineHistoryPtr history) {
    history_ = *history;
    if (history_.points().empty()) return;
    makeRowGraphs(history_.layers());
    fitLayout();
    replotAll();
    rescale();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

ViewTable TimelineView::table() const {
    // Every point kept, with the step times the picture hides in script runs.
    ViewTable t{{"tick", "sample_ms", "brightness_ms", "propose_ms", "apply_ms", "total_ms",
                 "mean_brightness", "drifts"},
                {}};
    for (int l = 0; l < history_.layers(); ++l) t.columns << QString("rows_layer_%1").arg(l);
    for (const TimelinePoint& p : history_.points()) {
        QStringList drifts;
        for (double d : p.drifts) drifts << QString::number(d, 'g', 17);
        QVariantList row{qint64(p.tick),       p.timings.sample_ms, p.timings.brightness_ms,
                         p.timings.propose_ms, p.timings.apply_ms,  p.timings.total_ms,
                         p.mean_brightness,    drifts.join(';')};
        for (int rows : p.rows) row << rows;
        t.rows.append(row);
    }
    return t;
}

}  // namespace kvw
