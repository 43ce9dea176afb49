#pragma once
#include <vector>

#include "widgets/frame_view.h"
#include "widgets/timeline_history.h"

class QCustomPlot;
class QCPAxisRect;
class QCPGraph;
class QCPItemStraightLine;
class QCPLayoutGrid;
class QCPLegend;
class QCPMarginGroup;

namespace kvw {

// Plots over ticks, from the frames this view has seen (TimelineHistory): tick latency per
// step, context rows per layer (a line per layer for few layers, else min/mean/max), mean
// brightness, and max drift whenever it was measured (log scale). Four panels side by side
// when the view is wide and short, else two by two.
class TimelineView : public FrameView {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);
    QString viewName() const override { return "timeline"; }
    ViewTable table() const override;
    // The run across ticks stays; the past tick the window shows is a line on every panel, and a
    // click on a panel picks the tick under it (tickChosen).
    bool showsHistory() const override { return true; }
    // The tick of the marker line; -1: none (the window shows the live session).
    qint64 shownTick() const { return shown_tick_; }

    const TimelineHistory& history() const { return history_; }
    QCustomPlot* plot() const { return plot_; }

    // Layers up to this many get a line each in the rows panel.
    static constexpr int kMaxLayerLines = 8;

public slots:
    void setFrame(kvw::FramePtr frame) override;
    // Every point of `history` at once (the ticks of an opened trace), in place of the run this
    // view has seen; the Frames that follow go on from it.
    void setHistory(kvw::TimelineHistoryPtr history);
    void setShownTick(qint64 tick) override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void addPanel(const QString& label, bool with_legend);
    // Lays the panels out in `columns` columns (2 or 4), legends in the row above.
    void arrange(int columns);
    QCPGraph* addGraph(int panel, const QString& name, const QColor& color);
    void makeRowGraphs(int layers);
    void replotAll();
    void plotPoint(const TimelinePoint& p);
    void rescale();
    // Wraps the legends at the most entries a line (up to 5) at which they fit `width` side by
    // side.
    void wrapLegendsToFit(int width);
    // Wraps the legends to the view's width, chooses the panels a row and the plot's minimum
    // height: after a resize or a change of the legends' entries.
    void fitLayout();
    // The plot's height below which a layout of `columns` panels a row would clip an axis title.
    int minimumHeightFor(int columns) const;
    void setLegendWrap(int wrap);
    void pickTick(const QPoint& at);

    TimelineHistory history_;
    QCustomPlot* plot_;
    std::vector<QCPAxisRect*> panels_;   // latency, rows, brightness, drift
    std::vector<QCPLegend*> legends_;    // [panel]; nullptr: none
    QCPLayoutGrid* legend_row_;          // the legends, side by side
    QCPLayoutGrid* panel_grid_;          // the panels, 2 × 2 or 1 × 4
    QCPMarginGroup* column_margins_[4];  // panels of one column align their axes
    int columns_ = 0;
    int legend_wrap_ = 5;             // legend entries per line
    std::vector<QCPGraph*> latency_;  // sample, brightness, propose, apply, total
    std::vector<QCPGraph*> rows_;     // one per layer, or min, mean, max
    int row_graph_layers_ = -1;       // the layer count rows_ was made for
    QCPGraph* brightness_ = nullptr;
    QCPGraph* drift_ = nullptr;
    std::vector<QCPItemStraightLine*> markers_;  // [panel] the shown past tick
    qint64 shown_tick_ = -1;
};

}  // namespace kvw
