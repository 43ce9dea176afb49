#pragma once
#include "widgets/frame_view.h"
#include "widgets/layer_map_data.h"

class QComboBox;
class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCPItemStraightLine;
class QCPItemText;

namespace kvw {

// Layers × rows heat maps (QCPColorMap) of one chosen quantity (MapKind). Row r of layer l is
// at x = r, y = l (layer 0 on top), in a cell of its own while the plot has a pixel per row,
// else pooled with its neighbours; rows a layer does not have show the hatched background. Clicking
// a cell selects that row everywhere; the selection is outlined.
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

    QCustomPlot* plot() const { return plot_; }
    QCPColorMap* colorMap() const { return map_; }
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
    void placeMarker();
    void clicked(const QPoint& pos);

    FramePtr frame_;
    MapKind kind_ = MapKind::Brightness;
    int sel_layer_ = -1;
    int sel_row_ = -1;
    int sel_count_ = 1;         // the marker spans rows [sel_row_, sel_row_ + sel_count_)
    int cells_for_width_ = -1;  // the axis rect width the map's cells were made for; -1: none
    QComboBox* combo_;
    QCustomPlot* plot_;
    QCPColorMap* map_;
    QCPColorScale* scale_;
    QCPItemRect* marker_;
    QCPItemStraightLine* row_line_;
    QCPItemText* absent_;
};

}  // namespace kvw
