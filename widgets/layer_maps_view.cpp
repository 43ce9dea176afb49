#include "widgets/layer_maps_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "core/model/layer_windows.h"
#include "qcustomplot.h"
#include "widgets/fitting_ticker.h"
#include "widgets/point_tool_tip.h"
#include "widgets/row_text.h"
#include "widgets/window_reach.h"

namespace kvw {

namespace {

constexpr double kZoomStep = 2.0;  // what "+" and "−" multiply the shown width by
constexpr int kClickSlop = 3;      // pixels the mouse may move between press and release

QToolButton* tool_button(QWidget* parent, const char* name, const QString& text,
                         const QString& tip) {
    auto* b = new QToolButton(parent);
    b->setObjectName(name);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
}

}  // namespace

LayerMapsView::LayerMapsView(QWidget* parent)
    : FrameView(parent),
      combo_(new QComboBox(this)),
      rows_label_(new QLabel(this)),
      drift_note_(new QLabel(this)),
      plot_(new QCustomPlot(this)),
      overview_(new QCustomPlot(this)) {
    combo_->setObjectName("map");
    plot_->setObjectName("plot");
    overview_->setObjectName("overview");
    rows_label_->setObjectName("rows");
    for (const MapSpec& spec : map_specs()) combo_->addItem(spec.title, int(spec.kind));
    combo_->setCurrentIndex(combo_->findData(int(kind_)));
    combo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);

    auto* zoom_in = tool_button(this, "zoom_in", "+", "Zoom in on the rows (or the mouse wheel)");
    auto* zoom_out = tool_button(this, "zoom_out", "−", "Zoom out");
    auto* fit = tool_button(this, "fit", "Fit", "Show every row");
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel("Map", this));
    bar->addWidget(combo_);
    bar->addStretch(1);
    bar->addWidget(rows_label_);
    bar->addWidget(zoom_out);
    bar->addWidget(zoom_in);
    bar->addWidget(fit);
    drift_note_->setObjectName("driftNote");
    drift_note_->setWordWrap(true);
    drift_note_->setToolTip(
        "Drift of a row: max |cached − fresh| / ‖fresh row‖ over its K and V, where the fresh "
        "row is what a new forward pass over the tokens its layer holds now gives. Rounding to "
        "the storage types leaves up to one step of the coarser type (the tolerance); past it, "
        "the row is stale (an edit moved its context, a ring overwrote it).");
    drift_note_->setVisible(false);
    window_note_ = new QLabel(this);
    window_note_->setObjectName("windowNote");
    window_note_->setWordWrap(true);
    window_note_->setToolTip(
        "A layer with a sliding window attends only to the rows whose rope position lies fewer "
        "than its window before the token's own. The shaded rows are still cached, but the next "
        "token does not see them.");
    window_note_->setVisible(false);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(drift_note_);
    layout->addWidget(window_note_);
    layout->addWidget(plot_, 1);
    layout->addWidget(overview_);
    connect(zoom_in, &QToolButton::clicked, this, [this] {
        const RowWindow w = visibleRows();
        zoomBy(kZoomStep, 0.5 * (w.first + w.last));
    });
    connect(zoom_out, &QToolButton::clicked, this, [this] {
        const RowWindow w = visibleRows();
        zoomBy(1 / kZoomStep, 0.5 * (w.first + w.last));
    });
    connect(fit, &QToolButton::clicked, this, &LayerMapsView::fitRows);

    QCPAxis* x = plot_->xAxis;
    QCPAxis* y = plot_->yAxis;
    x->setLabel("row");
    y->setLabel("layer");
    y->setRangeReversed(true);  // layer 0 on top, as the layers are listed everywhere else
    // Layers and rows are whole numbers (no 2.5 under a row of cells), labelled as densely as
    // the plot's size lets the labels stay apart.
    y->setTicker(QSharedPointer<QCPAxisTicker>(new FittingTicker(y)));
    x->setTicker(QSharedPointer<QCPAxisTicker>(new FittingTicker(x)));
    x->grid()->setVisible(false);
    y->grid()->setVisible(false);
    // Cells a layer does not have are transparent: the hatch says "no row here".
    plot_->axisRect()->setBackground(QBrush(QColor("#9e9e9e"), Qt::BDiagPattern));

    map_ = new QCPColorMap(x, y);
    map_->setInterpolate(false);
    map_->setTightBoundary(false);
    scale_ = new QCPColorScale(plot_);
    plot_->plotLayout()->addElement(0, 1, scale_);
    scale_->setType(QCPAxis::atRight);
    map_->setColorScale(scale_);
    // The tolerance across the colour bar, a little past both its sides.
    tolerance_line_ = new QCPItemLine(plot_);
    tolerance_line_->setLayer("overlay");
    tolerance_line_->setClipToAxisRect(false);
    tolerance_line_->setPen(QPen(Qt::white, 2));
    tolerance_line_->setSelectable(false);
    for (QCPItemPosition* end : {tolerance_line_->start, tolerance_line_->end}) {
        QCPAxisRect* bar_rect = scale_->axis()->axisRect();
        end->setAxisRect(bar_rect);
        end->setAxes(bar_rect->axis(QCPAxis::atBottom), scale_->axis());
        end->setTypeX(QCPItemPosition::ptAxisRectRatio);
        end->setTypeY(QCPItemPosition::ptPlotCoords);
    }
    tolerance_line_->setVisible(false);
    auto* margins = new QCPMarginGroup(plot_);
    plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    scale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);

    marker_ = new QCPItemRect(plot_);
    marker_->setPen(QPen(Qt::cyan, 2));
    marker_->setBrush(Qt::NoBrush);
    row_line_ = new QCPItemStraightLine(plot_);
    row_line_->setPen(QPen(Qt::cyan, 1, Qt::DashLine));
    absent_ = new QCPItemText(plot_);
    absent_->position->setType(QCPItemPosition::ptAxisRectRatio);
    absent_->position->setCoords(0.5, 0.5);
    absent_->setText("drift not measured for this state");
    absent_->setBrush(QColor(255, 255, 255, 230));
    absent_->setPadding(QMargins(6, 4, 6, 4));
    for (QCPAbstractItem* item :
         {static_cast<QCPAbstractItem*>(marker_), static_cast<QCPAbstractItem*>(row_line_),
          static_cast<QCPAbstractItem*>(absent_)}) {
        item->setVisible(false);
        item->setSelectable(false);
    }

    // The wheel zooms and a drag pans the rows only: the layers always all show.
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);
    plot_->axisRect()->setRangeDragAxes(x, nullptr);
    plot_->axisRect()->setRangeZoomAxes(x, nullptr);
    connect(x, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this](const QCPRange& range) {
                if (!setting_range_) followAxisRange(range);
            });

    // The overview: every row of every layer at the strip's width, the shown rows framed.
    overview_->setFixedHeight(56);
    overview_->yAxis->setRangeReversed(true);
    overview_->yAxis->setTicks(false);
    overview_->yAxis->setTickLabels(false);
    overview_->xAxis->grid()->setVisible(false);
    overview_->yAxis->grid()->setVisible(false);
    overview_->xAxis->setTickLabelFont(font());
    overview_->axisRect()->setBackground(QBrush(QColor("#9e9e9e"), Qt::BDiagPattern));
    overview_map_ = new QCPColorMap(overview_->xAxis, overview_->yAxis);
    overview_map_->setInterpolate(false);
    overview_map_->setTightBoundary(false);
    overview_frame_ = new QCPItemRect(overview_);
    overview_frame_->setPen(QPen(Qt::cyan, 2));
    overview_frame_->setBrush(QColor(0, 255, 255, 40));
    overview_frame_->setSelectable(false);
    overview_->setVisible(false);
    auto move_to = [this](QMouseEvent* e) {
        if (e->buttons() & Qt::LeftButton) centreOn(overview_->xAxis->pixelToCoord(e->pos().x()));
    };
    connect(overview_, &QCustomPlot::mousePress, this, move_to);
    connect(overview_, &QCustomPlot::mouseMove, this, move_to);

    plot_->installEventFilter(this);
    // More rows than pixels: each cell pools several rows (fill_map_data), so that no row is
    // skipped when the image is drawn. The pixel width is known once the plot is laid out.
    connect(plot_, &QCustomPlot::afterLayout, this, [this] {
        if (plot_->isVisible() && plot_->axisRect()->width() != cells_for_width_) {
            refill();
        } else if (scale_->axis()->scaleType() == QCPAxis::stLogarithmic &&
                   scale_->axis()->ticker()->tickCount() != scaleLabels()) {
            scale_->axis()->ticker()->setTickCount(scaleLabels());
            plot_->replot(QCustomPlot::rpQueuedReplot);
        } else {
            FittingTicker::replot_if_stale(plot_);
        }
    });
    // A click selects on release, so that a press that starts a drag selects nothing.
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        if (e->button() == Qt::LeftButton) press_pos_ = e->pos();
    });
    connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        if (e->button() == Qt::LeftButton &&
            (e->pos() - press_pos_).manhattanLength() <= kClickSlop)
            clicked(e->pos());
    });
    connect(combo_, &QComboBox::currentIndexChanged, this,
            [this](int index) { setMapKind(MapKind(combo_->itemData(index).toInt())); });
}

void LayerMapsView::setMapKind(MapKind kind) {
    if (kind == kind_) return;
    kind_ = kind;
    combo_->setCurrentIndex(combo_->findData(int(kind)));
    refill();
}

void LayerMapsView::setFrame(FramePtr frame) {
    frame_ = std::move(frame);
    refill();
}

void LayerMapsView::setSelection(int layer, int row, int count) {
    sel_layer_ = layer;
    sel_row_ = row;
    sel_count_ = std::max(count, 1);
    const RowWindow w = visibleRows();
    if (zoomed_ && row >= 0 && (row < w.first || row >= w.last)) {
        centreOn(row);  // a row chosen elsewhere comes into view
        return;
    }
    placeMarker();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void LayerMapsView::refill() {
    if (!frame_) return;
    const MapSpec& spec = map_spec(kind_);
    // Before the plot is shown and laid out its width means nothing: a cell per row then.
    const bool laid_out = plot_->isVisible() && plot_->axisRect()->width() > 0;
    cells_for_width_ = laid_out ? plot_->axisRect()->width() : -1;
    const RowWindow window = visibleRows();
    fill_map_data(*frame_, kind_, *map_->data(),
                  laid_out ? cells_for_width_ : std::numeric_limits<int>::max(), window);
    for (QCPColorMap* map : {map_, overview_map_}) {
        map->setGradient(map_gradient(*frame_, kind_));
        map->setDataScaleType(spec.logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
        map->setDataRange(map_data_range(*frame_, kind_));
    }
    if (spec.logarithmic) {
        QSharedPointer<QCPAxisTickerLog> decades(new QCPAxisTickerLog);
        decades->setTickCount(scaleLabels());
        scale_->axis()->setTicker(decades);
        scale_->axis()->setNumberFormat("eb");
        scale_->axis()->setNumberPrecision(0);
    } else {
        scale_->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        scale_->axis()->setNumberFormat("gb");
        scale_->axis()->setNumberPrecision(6);
    }
    scale_->axis()->setLabel(spec.title);
    setting_range_ = true;
    plot_->xAxis->setRange(window.first - 0.5, window.last - 0.5);
    setting_range_ = false;
    plot_->yAxis->setRange(-0.5, map_rows(*frame_) - 0.5);
    absent_->setVisible(kind_ == MapKind::Drift && !frame_->drift_measured);
    drift_note_->setVisible(kind_ == MapKind::Drift);
    drift_note_->setText(drift_map_note(*frame_));
    const bool tolerance =
        kind_ == MapKind::Drift && !std::isnan(drift_tolerance_fraction(frame_->drift_tolerance));
    tolerance_line_->setVisible(tolerance);
    tolerance_line_->start->setCoords(-0.3, frame_->drift_tolerance);
    tolerance_line_->end->setCoords(1.3, frame_->drift_tolerance);
    const QLocale c = QLocale::c();
    rows_label_->setText(zoomed_ ? QString("rows %1–%2 of %3")
                                       .arg(c.toString(window.first), c.toString(window.last - 1),
                                            c.toString(map_columns(*frame_)))
                                 : QString());
    const std::string windows = layer_windows_text(frame_->model.layer_window);
    window_note_->setVisible(!windows.empty());
    window_note_->setText(
        QString("Sliding window: %1. Shaded rows are out of the next token's reach.")
            .arg(QString::fromStdString(windows)));
    placeReachShades();
    placeMarker();
    plot_->replot(QCustomPlot::rpQueuedReplot);
    overview_->setVisible(zoomed_);
    if (zoomed_) refillOverview();
}

void LayerMapsView::refillOverview() {
    const int width = overview_->axisRect()->width();
    fill_map_data(*frame_, kind_, *overview_map_->data(),
                  width > 0 ? width : std::numeric_limits<int>::max());
    overview_->xAxis->setRange(-0.5, map_columns(*frame_) - 0.5);
    overview_->yAxis->setRange(-0.5, map_rows(*frame_) - 0.5);
    const RowWindow window = visibleRows();
    overview_frame_->topLeft->setCoords(window.first - 0.5, -0.5);
    overview_frame_->bottomRight->setCoords(window.last - 0.5, map_rows(*frame_) - 0.5);
    overview_->replot(QCustomPlot::rpQueuedReplot);
}

int LayerMapsView::scaleLabels() const {
    // A label every two lines' height: the decades of a short bar do not print over each other.
    return std::clamp(scale_->axis()->axisRect()->height() / (2 * fontMetrics().height()), 1, 8);
}

RowWindow LayerMapsView::visibleRows() const {
    if (!frame_) return {0, 2};
    return clamp_window(*frame_, zoomed_ ? window_ : RowWindow{});
}

void LayerMapsView::setVisibleRows(int first, int last) {
    if (!frame_) return;
    const int columns = map_columns(*frame_);
    const int width = std::clamp(last - first, std::min(kMinRows, columns), columns);
    first = std::clamp(first, 0, columns - width);
    zoomed_ = width < columns;
    window_ = {first, first + width};
    refill();
}

void LayerMapsView::zoomBy(double factor, double centre) {
    const RowWindow w = visibleRows();
    const double width = (w.last - w.first) / factor;
    const double left = centre - (centre - w.first) / factor;
    setVisibleRows(int(std::lround(left)), int(std::lround(left + width)));
}

void LayerMapsView::fitRows() {
    zoomed_ = false;
    refill();
}

void LayerMapsView::followAxisRange(const QCPRange& range) {
    setVisibleRows(int(std::lround(range.lower + 0.5)), int(std::lround(range.upper + 0.5)));
}

void LayerMapsView::centreOn(double row) {
    const RowWindow w = visibleRows();
    const int width = w.last - w.first;
    const int first = int(std::lround(row - 0.5 * width));
    setVisibleRows(first, first + width);
}

void LayerMapsView::placeMarker() {
    const bool shown = frame_ && sel_layer_ >= 0 && sel_layer_ < int(frame_->layers.size()) &&
                       sel_row_ >= 0 && sel_row_ < frame_->layers[size_t(sel_layer_)].rows();
    marker_->setVisible(shown);
    row_line_->setVisible(shown);
    if (!shown) return;
    const int last = std::min(sel_row_ + sel_count_, frame_->layers[size_t(sel_layer_)].rows()) - 1;
    marker_->topLeft->setCoords(sel_row_ - 0.5, sel_layer_ - 0.5);
    marker_->bottomRight->setCoords(last + 0.5, sel_layer_ + 0.5);
    row_line_->point1->setCoords(sel_row_, 0);
    row_line_->point2->setCoords(sel_row_, 1);
}

void LayerMapsView::placeReachShades() {
    size_t used = 0;
    const RowWindow window = visibleRows();
    // Runs closer than a cell merge: a gap narrower than a pixel cannot be seen, and so the
    // shades stay as few as the cells even when edits scatter the positions.
    const int cell_rows =
        cells_for_width_ > 0 ? std::max(1, (window.last - window.first) / cells_for_width_) : 1;
    for (int l = 0; l < int(frame_->layers.size()); ++l) {
        std::vector<RowWindow> runs;
        for (const RowWindow& run : out_of_reach_runs(*frame_, l, window)) {
            if (!runs.empty() && run.first - runs.back().last < cell_rows)
                runs.back().last = run.last;
            else
                runs.push_back(run);
        }
        for (const RowWindow& run : runs) {
            if (used == reach_shades_.size()) {
                auto* shade = new QCPItemRect(plot_);
                // Darkened, and outlined so that it never reads as a value of the scale.
                shade->setPen(QPen(Qt::white, 1, Qt::DashLine));
                shade->setBrush(QColor(0, 0, 0, 150));
                shade->setSelectable(false);
                reach_shades_.push_back(shade);
            }
            QCPItemRect* shade = reach_shades_[used++];
            shade->topLeft->setCoords(run.first - 0.5, l - 0.5);
            shade->bottomRight->setCoords(run.last - 0.5, l + 0.5);
            shade->setVisible(true);
        }
    }
    for (size_t i = used; i < reach_shades_.size(); ++i) reach_shades_[i]->setVisible(false);
}

std::vector<const QCPItemRect*> LayerMapsView::reachShades() const {
    std::vector<const QCPItemRect*> shown;
    for (const QCPItemRect* shade : reach_shades_)
        if (shade->visible()) shown.push_back(shade);
    return shown;
}

bool LayerMapsView::cellAt(const QPoint& pos, int* layer, int* row) const {
    if (!frame_ || !plot_->axisRect()->rect().contains(pos)) return false;
    const int r = int(std::lround(plot_->xAxis->pixelToCoord(pos.x())));
    const int l = int(std::lround(plot_->yAxis->pixelToCoord(pos.y())));
    if (l < 0 || l >= int(frame_->layers.size()) || r < 0 || r >= frame_->layers[size_t(l)].rows())
        return false;
    *layer = l;
    *row = r;
    return true;
}

void LayerMapsView::clicked(const QPoint& pos) {
    int layer = 0, row = 0;
    if (!cellAt(pos, &layer, &row)) return;
    setSelection(layer, row);
    // The row first: it carries its layer, so the window never pairs the new layer with the
    // old row.
    emit rowSelected(layer, row);
    emit layerSelected(layer);
}

QString LayerMapsView::cellToolTip(int layer, int row) const {
    return frame_ ? row_tooltip_text(*frame_, layer, row) : QString();
}

bool LayerMapsView::eventFilter(QObject* watched, QEvent* event) {
    const auto text_at = [this](QPoint at) {
        int layer = 0, row = 0;
        return cellAt(at, &layer, &row) ? cellToolTip(layer, row) : QString();
    };
    if (watched == plot_ && show_point_tool_tip(plot_, event, text_at)) return true;
    return FrameView::eventFilter(watched, event);
}

ViewTable LayerMapsView::table() const {
    // Every quantity of every map, one line per (layer, row), whichever map is shown.
    ViewTable t{{"layer", "row", "ledger_id", "ledger_age", "brightness", "phase_skew", "drift"},
                {}};
    if (!frame_) return t;
    for (size_t l = 0; l < frame_->layers.size(); ++l) {
        const LayerFrame& lf = frame_->layers[l];
        for (int r = 0; r < lf.rows(); ++r) {
            const int64_t id = lf.pos2ledger[size_t(r)];
            const bool known = id >= 0 && id < int64_t(frame_->ledger.size());
            t.rows.append(
                {int(l), r, qint64(id),
                 known ? QVariant(qint64(frame_->tick - frame_->ledger[size_t(id)].born_tick))
                       : QVariant(),
                 lf.brightness(size_t(r)), lf.rope_pos[size_t(r)] - r,
                 size_t(r) < lf.drift.size() ? QVariant(lf.drift[size_t(r)]) : QVariant()});
        }
    }
    return t;
}

}  // namespace kvw
