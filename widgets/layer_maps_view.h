#pragma once
#include <vector>
#include "widgets/frame_view.h"
#include "widgets/layer_map_data.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QCPColorMap;
class QCPColorScale;
class QCPItemLine;
class QCPItemRect;
class QCPItemStraightLine;
class QCPItemText;

namespace kvw {

// Layers × rows heat maps (QCPColorMap) of one chosen quantity (MapKind). Row r of layer l is
// at x = r, y = l (layer 0 on top), in a cell of its own while the plot has a pixel per row,
// else pooled with its neighbours; rows a layer does not have show the hatched background. Clicking
// a cell selects that row everywhere; the selection is outlined.
// Long contexts (ARCHITECTURE §7.1): the wheel zooms the rows around the mouse, a drag pans,
// "+" / "−" / "Fit" do the same from buttons, and while zoomed in an overview strip under the
// map shows the whole context with the shown rows framed (click or drag it to move there). Only
// the shown rows are read, pooled to the plot's width.
// The drift map says above it what drift is measured against and marks on its colour scale the
// tolerance of the storage types, the scale stepping from dark to bright there.
class LayerMapsView : public FrameView {
    Q_OBJECT
public:
    explicit LayerMapsView(QWidget* parent = nullptr);
    QString viewName() const override { return "maps"; }
    ViewTable table() const override;

    void setMapKind(MapKind kind);
    MapKind mapKind() const { return kind_; }

    // What hovering the cell shows: layer, row, the record it holds and every per-row quantity.
    // Empty outside the layer's rows.
    QString cellToolTip(int layer, int row) const;
    // The cell under a point of the plot widget, or false when there is none.
    bool cellAt(const QPoint& plot_pos, int* layer, int* row) const;

    // Rows [first, last) the map shows; the whole context while not zoomed in.
    RowWindow visibleRows() const;
    // Shows rows [first, last) (clamped to the context, at least kMinRows wide); the whole
    // context again when the window covers it.
    void setVisibleRows(int first, int last);
    // Divides the shown width by `factor` (> 1 zooms in) about row `centre`.
    void zoomBy(double factor, double centre);
    void fitRows();
    bool zoomedIn() const { return zoomed_; }
    static constexpr int kMinRows = 16;

    QCustomPlot* plot() const { return plot_; }
    QCustomPlot* overview() const { return overview_; }
    QCPColorMap* colorMap() const { return map_; }
    QCPColorScale* colorScale() const { return scale_; }
    // The drift tolerance's mark across the colour scale (shown on the drift map only).
    QCPItemLine* toleranceLine() const { return tolerance_line_; }
    // The line above the plot saying what the drift map compares (drift map only).
    QLabel* driftNote() const { return drift_note_; }
    QLabel* windowNote() const { return window_note_; }
    // The shades drawn now over rows out of a sliding window's reach.
    std::vector<const QCPItemRect*> reachShades() const;
    int selectedLayer() const { return sel_layer_; }
    int selectedRow() const { return sel_row_; }
    int selectedCount() const { return sel_count_; }

public slots:
    void setFrame(kvw::FramePtr frame) override;
    void setSelection(int layer, int row, int count = 1) override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refill();
    void refillOverview();
    void placeMarker();
    void placeReachShades();
    void clicked(const QPoint& pos);
    // The x range follows a drag or the wheel: the window becomes that range.
    void followAxisRange(const QCPRange& range);
    void centreOn(double row);
    // Labels the log colour scale has room for (a decade each, or every few decades).
    int scaleLabels() const;

    FramePtr frame_;
    MapKind kind_ = MapKind::Brightness;
    int sel_layer_ = -1;
    int sel_row_ = -1;
    int sel_count_ = 1;         // the marker spans rows [sel_row_, sel_row_ + sel_count_)
    int cells_for_width_ = -1;  // the axis rect width the map's cells were made for; -1: none
    bool zoomed_ = false;       // window_ is a part of the context (else: all of it)
    RowWindow window_;
    bool setting_range_ = false;  // the view itself is moving the x axis
    QPoint press_pos_;            // where the left button went down: a click, or a drag
    QComboBox* combo_;
    QLabel* rows_label_;
    QLabel* drift_note_;
    QCustomPlot* plot_;
    QCustomPlot* overview_;
    QCPColorMap* map_;
    QCPColorMap* overview_map_;
    QCPItemRect* overview_frame_;
    QCPColorScale* scale_;
    QCPItemLine* tolerance_line_;
    QCPItemRect* marker_;
    QCPItemStraightLine* row_line_;
    QCPItemText* absent_;
    QLabel* window_note_;
    // Shades over the rows out of a sliding window's reach (widgets/window_reach.h), reused
    // from frame to frame; those past the frame's runs are hidden.
    std::vector<QCPItemRect*> reach_shades_;
};

}  // namespace kvw
