#pragma once
#include <vector>

#include "widgets/frame_view.h"
#include "widgets/timeline_history.h"

class QCustomPlot;
class QCPAxisRect;
class QCPGraph;
class QCPLegend;

namespace kvw {

// Plots over ticks, from the frames this view has seen (TimelineHistory): tick latency per
// step, context rows per layer (a line per layer for few layers, else min/mean/max), mean
// brightness, and max drift whenever it was measured (log scale).
class TimelineView : public FrameView {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);
    QString viewName() const override { return "timeline"; }

    const TimelineHistory& history() const { return history_; }
    QCustomPlot* plot() const { return plot_; }

    // Layers up to this many get a line each in the rows panel.
    static constexpr int kMaxLayerLines = 8;

public slots:
    void setFrame(kvw::FramePtr frame) override;

private:
    void addPanel(const QString& label, bool with_legend, bool bottom);
    QCPGraph* addGraph(int panel, const QString& name, const QColor& color);
    void makeRowGraphs(int layers);
    void replotAll();
    void plotPoint(const TimelinePoint& p);
    void rescale();

    TimelineHistory history_;
    QCustomPlot* plot_;
    std::vector<QCPAxisRect*> panels_;  // latency, rows, brightness, drift
    std::vector<QCPLegend*> legends_;   // [panel]; nullptr: none
    std::vector<QCPGraph*> latency_;    // sample, brightness, propose, apply, total
    std::vector<QCPGraph*> rows_;       // one per layer, or min, mean, max
    int row_graph_layers_ = -1;         // the layer count rows_ was made for
    QCPGraph* brightness_ = nullptr;
    QCPGraph* drift_ = nullptr;
};

}  // namespace kvw
