// Layer maps: every map kind's cell values against the frame's formulas, rows a layer does not
// have left empty, clicks and setSelection, hover text, and the colours actually painted; the
// drift map's reference said above it and its storage tolerance marked on the colour scale.
#include <QLabel>
#include <QToolButton>
#include <QtTest>
#include <cmath>
#include <map>
#include <set>

#include "frame_builder.h"
#include "qcustomplot.h"
#include "widgets/layer_maps_view.h"

using namespace kvw;
using test::make_frame;

namespace {

constexpr int kLayers = 4;
constexpr int kRows = 40;

// The value the test expects in each cell, from the builder's formulas.
double expected(const Frame& f, MapKind kind, int l, int r) {
    switch (kind) {
        case MapKind::LedgerId: return double(test::ledger_of(l, r));
        case MapKind::LedgerAge: return double(f.tick - test::born_of(test::ledger_of(l, r)));
        case MapKind::Brightness: return test::brightness_of(l, r, kRows);
        case MapKind::Drift: return test::drift_of(l, r);
        case MapKind::PhaseSkew: return double(test::rope_of(l, r) - r);
    }
    return 0;
}

QPoint cell_pixel(LayerMapsView& view, int layer, int row) {
    return QPoint(int(view.plot()->xAxis->coordToPixel(row)),
                  int(view.plot()->yAxis->coordToPixel(layer)));
}

}  // namespace

class TestLayerMapsView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    void every_map_holds_the_frame_values() {
        LayerMapsView view;
        auto frame = make_frame(kLayers, kRows, 40, /*drift=*/true);
        view.setFrame(frame);
        for (const MapSpec& spec : map_specs()) {
            view.setMapKind(spec.kind);
            QCPColorMapData* data = view.colorMap()->data();
            QCOMPARE(data->keySize(), kRows);
            QCOMPARE(data->valueSize(), kLayers);
            for (int l = 0; l < kLayers; ++l) {
                for (int r = 0; r < kRows; ++r) {
                    const double cell = data->cell(r, l);
                    if (r >= test::layer_rows(l, kRows)) {
                        QVERIFY2(std::isnan(cell),
                                 qPrintable(QString("%1: layer %2 row %3 beyond the layer")
                                                .arg(spec.title)
                                                .arg(l)
                                                .arg(r)));
                        continue;
                    }
                    QVERIFY2(std::abs(cell - expected(*frame, spec.kind, l, r)) <=
                                 1e-9 + 1e-6 * std::abs(cell),
                             qPrintable(QString("%1: layer %2 row %3: %4")
                                            .arg(spec.title)
                                            .arg(l)
                                            .arg(r)
                                            .arg(cell)));
                }
            }
        }
    }

    void colour_ranges_follow_the_quantity() {
        LayerMapsView view;
        auto frame = make_frame(kLayers, kRows);
        frame->brightness_max = 100;
        view.setFrame(frame);
        view.setMapKind(MapKind::Brightness);
        QCOMPARE(view.colorMap()->dataRange(), QCPRange(0, 100));
        view.setMapKind(MapKind::PhaseSkew);
        // rope_of gives skews -1, 0, +1: a symmetric range keeps zero at the scale's centre.
        QCOMPARE(view.colorMap()->dataRange(), QCPRange(-1, 1));
        view.setMapKind(MapKind::Drift);
        QCOMPARE(view.colorMap()->dataScaleType(), QCPAxis::stLogarithmic);
    }

    void unmeasured_drift_is_absent() {
        LayerMapsView view;
        view.setFrame(make_frame(kLayers, kRows, 40, /*drift=*/false));
        view.setMapKind(MapKind::Drift);
        QCPColorMapData* data = view.colorMap()->data();
        for (int l = 0; l < kLayers; ++l)
            for (int r = 0; r < kRows; ++r) QVERIFY(std::isnan(data->cell(r, l)));
        bool note = false;
        for (int i = 0; i < view.plot()->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(view.plot()->item(i)))
                note = note || (t->visible() && t->text().contains("not measured"));
        QVERIFY(note);
    }

    // int8 storage rounds up to 1e-5 + 1/127 of a row's norm: a row at half that is rounding and
    // is painted in the scale's dark end, a row at twice that differs from a fresh pass and is
    // painted bright. (On one unbroken log scale the two were a tenth of the scale apart, both
    // red.) The tolerance is a line across the colour scale at its value; the note above the
    // map says what drift compares; hovering says on which side of the tolerance a row is.
    void drift_tolerance_on_the_scale() {
        LayerMapsView view;
        QVERIFY(test::show_exposed(view, 900, 420));
        auto frame = make_frame(kLayers, kRows, 40, /*drift=*/true);
        frame->k_type = frame->v_type = "int8";
        const float tolerance = 1e-5f + 1.0f / 127.0f;
        frame->drift_tolerance = tolerance;
        frame->layers[0].drift[2] = tolerance / 2;
        frame->layers[0].drift[3] = tolerance * 2;
        view.setFrame(frame);
        view.setMapKind(MapKind::Drift);
        view.plot()->replot();
        const QImage image = view.plot()->grab().toImage();
        const double within = test::luminance(image.pixelColor(cell_pixel(view, 0, 2)));
        const double past = test::luminance(image.pixelColor(cell_pixel(view, 0, 3)));
        QVERIFY2(within < 0.05 && past > 0.12,
                 qPrintable(QString("%1 vs %2").arg(within).arg(past)));

        QCPItemLine* line = view.toleranceLine();
        QVERIFY(line->visible());
        QCOMPARE(line->start->value(), double(tolerance));
        QCOMPARE(line->end->value(), double(tolerance));
        // Drawn across the bar, where the scale's axis puts the tolerance.
        const QRect bar = view.colorScale()->axis()->axisRect()->rect();
        const double y = view.colorScale()->axis()->coordToPixel(tolerance);
        QVERIFY(y > bar.top() && y < bar.bottom());
        QVERIFY(std::abs(line->start->pixelPosition().y() - y) < 0.5);
        QVERIFY(line->start->pixelPosition().x() < bar.left() &&
                line->end->pixelPosition().x() > bar.right());

        QVERIFY(view.driftNote()->isVisible());
        const QString note = view.driftNote()->text();
        QVERIFY2(note.contains("against a fresh pass over each layer's own tokens") &&
                     note.contains("int8 rounding tolerance 0.0079"),
                 qPrintable(note));
        QVERIFY2(view.cellToolTip(0, 2).contains("≤ tolerance 0.0079"),
                 qPrintable(view.cellToolTip(0, 2)));
        QVERIFY2(view.cellToolTip(0, 3).contains("differs from a fresh pass"),
                 qPrintable(view.cellToolTip(0, 3)));

        view.setMapKind(MapKind::Brightness);
        QVERIFY(!line->visible());
        QVERIFY(!view.driftNote()->isVisible());
    }

    void click_selects_the_cell_everywhere() {
        LayerMapsView view;
        QVERIFY(test::show_exposed(view, 800, 400));
        view.setFrame(make_frame(kLayers, kRows));
        view.plot()->replot();
        QSignalSpy rows(&view, &FrameView::rowSelected);
        QSignalSpy layers(&view, &FrameView::layerSelected);
        QTest::mouseClick(view.plot(), Qt::LeftButton, {}, cell_pixel(view, 2, 17));
        QCOMPARE(rows.count(), 1);
        QCOMPARE(rows.at(0).at(0).toInt(), 2);
        QCOMPARE(rows.at(0).at(1).toInt(), 17);
        QCOMPARE(layers.count(), 1);
        QCOMPARE(layers.at(0).at(0).toInt(), 2);
        QCOMPARE(view.selectedLayer(), 2);
        QCOMPARE(view.selectedRow(), 17);
        // Layer 3 holds 31 rows: row 35 is background, not a row to select.
        QTest::mouseClick(view.plot(), Qt::LeftButton, {}, cell_pixel(view, 3, 35));
        QCOMPARE(rows.count(), 1);
    }

    void set_selection_places_the_marker() {
        LayerMapsView view;
        view.setFrame(make_frame(kLayers, kRows));
        view.setSelection(1, 12);
        QCPItemRect* marker = nullptr;
        for (int i = 0; i < view.plot()->itemCount(); ++i)
            if (auto* r = qobject_cast<QCPItemRect*>(view.plot()->item(i))) marker = r;
        QVERIFY(marker);
        QVERIFY(marker->visible());
        QCOMPARE(marker->topLeft->coords(), QPointF(11.5, 0.5));
        QCOMPARE(marker->bottomRight->coords(), QPointF(12.5, 1.5));
        view.setSelection(1, -1);
        QVERIFY(!marker->visible());
    }

    // Models of other layer counts in one window: the map takes each new shape (a row per
    // layer, the cells of the new layers filled), the marker of a layer the new model lacks
    // goes away, and the plot draws.
    void layer_count_changes_reshape_the_map() {
        LayerMapsView view;
        QVERIFY(test::show_exposed(view, 800, 300));
        view.setFrame(make_frame(22, 80));
        view.setSelection(21, 5);
        QCPColorMap* map = nullptr;
        QCPItemRect* marker = nullptr;
        for (int i = 0; i < view.plot()->plottableCount(); ++i)
            if (auto* m = qobject_cast<QCPColorMap*>(view.plot()->plottable(i))) map = m;
        for (int i = 0; i < view.plot()->itemCount(); ++i)
            if (auto* r = qobject_cast<QCPItemRect*>(view.plot()->item(i))) marker = r;
        QVERIFY(map && marker && marker->visible());
        for (const int layers : {2, 12, 4}) {
            view.setFrame(make_frame(layers, 80));
            QCOMPARE(map->data()->valueSize(), layers);
            QCOMPARE(view.plot()->yAxis->range().upper, layers - 0.5);
            const int last = layers - 1;
            QCOMPARE(map->data()->data(0, last), double(test::brightness_of(last, 0, 80)));
            QVERIFY(!marker->visible());
            view.plot()->replot(QCustomPlot::rpImmediateRefresh);
            QVERIFY(!view.grab().isNull());
        }
    }

    void hover_names_the_record() {
        LayerMapsView view;
        view.setFrame(make_frame(kLayers, kRows, 40, /*drift=*/true));
        const int l = 1, r = 9;
        const int64_t id = test::ledger_of(l, r);
        const QString tip = view.cellToolTip(l, r);
        QVERIFY2(tip.contains(QString("layer %1 · row %2 · ledger %3").arg(l).arg(r).arg(id)),
                 qPrintable(tip));
        QVERIFY2(tip.contains(QString("token %1").arg(100 + id)), qPrintable(tip));
        QVERIFY2(tip.contains(QString("born tick %1").arg(test::born_of(id))), qPrintable(tip));
        QVERIFY2(tip.contains(QString("rope_pos %1").arg(test::rope_of(l, r))), qPrintable(tip));
        QVERIFY2(
            tip.contains(QString("brightness %1").arg(test::brightness_of(l, r, kRows), 0, 'f', 1)),
            qPrintable(tip));
        QVERIFY2(tip.contains("prompt"), qPrintable(tip));
        QVERIFY(view.cellToolTip(3, 35).isEmpty());
        QVERIFY(view.cellToolTip(kLayers, 0).isEmpty());
    }

    // Sliding windows: rows whose rope position lies `window` or more before the next token's
    // are shaded, per layer, and the hover says why; layers without a window are not.
    void rows_out_of_a_window_are_shaded() {
        LayerMapsView view;
        QVERIFY(test::show_exposed(view, 900, 400));
        auto frame = make_frame(kLayers, kRows);
        view.setMapKind(MapKind::Brightness);
        view.setFrame(frame);
        view.plot()->replot();
        const QImage plain = view.plot()->grab().toImage();
        QVERIFY(view.reachShades().empty());
        QVERIFY(!view.windowNote()->isVisibleTo(&view));

        auto windowed = std::make_shared<Frame>(*frame);
        windowed->model.layer_window = {0, 10, 0, 25};
        windowed->next_position = kRows;
        // Layer 3 with positions out of order, as edits leave them: two rows far back sit
        // among recent ones, so its out-of-reach rows form more than one run.
        std::vector<int32_t> scattered;
        for (int r = 0; r < windowed->layers[3].rows(); ++r)
            scattered.push_back(r == 20 || r == 21 ? 2 : test::rope_of(3, r));
        windowed->layers[3].rope_pos = std::move(scattered);
        view.setFrame(windowed);
        view.plot()->replot();
        const QImage shaded = view.plot()->grab().toImage();

        std::map<int, std::set<int>> covered;  // layer -> rows under a shade
        for (const QCPItemRect* shade : view.reachShades()) {
            const int layer = int(std::lround(shade->topLeft->coords().y() + 0.5));
            for (int r = int(std::lround(shade->topLeft->coords().x() + 0.5));
                 r < int(std::lround(shade->bottomRight->coords().x() + 0.5)); ++r)
                covered[layer].insert(r);
        }
        for (int l = 0; l < kLayers; ++l) {
            const int window = windowed->model.layer_window[size_t(l)];
            std::set<int> expected_rows;
            for (int r = 0; r < windowed->layers[size_t(l)].rows(); ++r)
                if (window > 0 && kRows - windowed->layers[size_t(l)].rope_pos[size_t(r)] >= window)
                    expected_rows.insert(r);
            QCOMPARE(covered[l], expected_rows);
        }
        QVERIFY(covered[1].count(0) && covered[1].count(30) && !covered[1].count(31));
        QVERIFY(covered[3].count(20) && !covered[3].count(19) && covered[3].count(15));
        QVERIFY(view.windowNote()->isVisibleTo(&view));
        QVERIFY2(view.windowNote()->text().contains("10 positions on layer 1; 25 positions on "
                                                    "layer 3"),
                 qPrintable(view.windowNote()->text()));
        QVERIFY(view.cellToolTip(1, 5).contains("out of reach"));
        QVERIFY(!view.cellToolTip(1, 35).contains("out of reach"));
        QVERIFY(!view.cellToolTip(0, 0).contains("out of reach"));
        // Painted: a shaded cell darker than it was, a cell in reach as it was.
        const QColor before = plain.pixelColor(cell_pixel(view, 1, 10));
        const QColor after = shaded.pixelColor(cell_pixel(view, 1, 10));
        QVERIFY2(test::luminance(after) < 0.6 * test::luminance(before),
                 qPrintable(before.name() + " → " + after.name()));
        QVERIFY(test::near(plain.pixelColor(cell_pixel(view, 1, 35)),
                           shaded.pixelColor(cell_pixel(view, 1, 35))));
        // Back to a model without windows: no shade is left.
        view.setFrame(frame);
        QVERIFY(view.reachShades().empty());
    }

    void painted_cells_go_dark_to_bright() {
        LayerMapsView view;
        QVERIFY(test::show_exposed(view, 900, 400));
        view.setFrame(make_frame(kLayers, kRows));
        view.setMapKind(MapKind::Brightness);
        view.plot()->replot();
        const QImage image = view.plot()->grab().toImage();
        // Layer 0: row 0 has brightness 0, row 17 has 255 (7 * 17 % 40 == 39).
        const QColor dark = image.pixelColor(cell_pixel(view, 0, 0));
        const QColor bright = image.pixelColor(cell_pixel(view, 0, 17));
        QVERIFY2(test::near(dark, QColor("#000004"), 12), qPrintable(dark.name()));
        QVERIFY2(test::near(bright, QColor("#fcffa4"), 12), qPrintable(bright.name()));
        // A row beyond layer 3's end shows the background, not a colour of the scale.
        const QColor empty = image.pixelColor(cell_pixel(view, 3, 38));
        QVERIFY2(!test::near(empty, dark, 30) && !test::near(empty, bright, 30),
                 qPrintable(empty.name()));
    }

    void large_frames_fill_every_cell() {
        LayerMapsView view;
        view.setFrame(make_frame(22, 8192));
        QCPColorMapData* data = view.colorMap()->data();
        QCOMPARE(data->keySize(), 8192);
        QCOMPARE(data->valueSize(), 22);
        QCOMPARE(data->cell(8191, 0), double(test::brightness_of(0, 8191, 8192)));
        QVERIFY(std::isnan(data->cell(8191, 21)));
    }

    void more_rows_than_pixels_pool_without_losing_a_row() {
        LayerMapsView view;
        QVERIFY(test::show_exposed(view, 900, 420));
        auto frame = make_frame(22, 8192, 300, /*drift=*/true);
        const int spike_layer = 5, spike_row = 4321;
        frame->layers[spike_layer].drift[spike_row] = 0.5f;  // one stale row among thousands
        view.setFrame(frame);
        view.setMapKind(MapKind::Drift);
        view.plot()->replot();
        QCPColorMapData* data = view.colorMap()->data();
        const int width = view.plot()->axisRect()->width();
        QVERIFY2(data->keySize() <= width && data->keySize() > width / 2,
                 qPrintable(QString::number(data->keySize())));
        // Rows per cell, from the key range the view set: cell c covers rows [c k, (c + 1) k).
        const int k = int(
            std::lround((data->keyRange().upper - data->keyRange().lower) / (data->keySize() - 1)));
        QVERIFY(k >= 2);
        QCOMPARE(data->cell(spike_row / k, spike_layer), 0.5);
        // Painted: the cell is about a pixel wide, so look a pixel or two either side.
        const QImage image = view.plot()->grab().toImage();
        const QPoint at_spike = cell_pixel(view, spike_layer, spike_row);
        double brightest = 0;
        for (int dx = -2; dx <= 2; ++dx)
            brightest =
                std::max(brightest, test::luminance(image.pixelColor(at_spike + QPoint(dx, 0))));
        QVERIFY2(brightest > 0.5, qPrintable(QString::number(brightest)));

        // Brightness pools by the mean of the cell's rows, recomputed here.
        view.setMapKind(MapKind::Brightness);
        for (int c : {0, 7, data->keySize() / 2}) {
            double sum = 0;
            for (int r = c * k; r < (c + 1) * k; ++r) sum += test::brightness_of(3, r, 8192);
            QVERIFY(std::abs(data->cell(c, 3) - sum / k) < 1e-3);
        }
        // The click still selects the exact row under the mouse.
        QSignalSpy rows(&view, &FrameView::rowSelected);
        const QPoint at = cell_pixel(view, 2, 6000);
        QTest::mouseClick(view.plot(), Qt::LeftButton, {}, at);
        QCOMPARE(rows.count(), 1);
        QCOMPARE(rows.at(0).at(1).toInt(),
                 int(std::lround(view.plot()->xAxis->pixelToCoord(at.x()))));
    }

    // Zoomed in, the map holds exactly the window's rows, a cell each, and says which; Fit
    // shows every row again.
    void zoomed_in_map_holds_exactly_the_window_rows() {
        LayerMapsView view;
        QVERIFY(test::show_exposed(view, 900, 420));
        auto frame = make_frame(kLayers, kRows);
        view.setFrame(frame);
        QVERIFY(!view.zoomedIn());
        QVERIFY(!view.overview()->isVisible());
        view.setVisibleRows(10, 30);
        QVERIFY(view.zoomedIn());
        QVERIFY(view.overview()->isVisible());
        QCPColorMapData* data = view.colorMap()->data();
        QCOMPARE(data->keySize(), 20);
        for (int l = 0; l < kLayers; ++l)
            for (int i = 0; i < 20; ++i) {
                const int r = 10 + i;
                double x = 0, y = 0;
                data->cellToCoord(i, l, &x, &y);
                QCOMPARE(x, double(r));  // cell i is row 10 + i
                if (r < test::layer_rows(l, kRows))
                    QCOMPARE(data->cell(i, l), double(test::brightness_of(l, r, kRows)));
                else
                    QVERIFY(std::isnan(data->cell(i, l)));
            }
        QCOMPARE(view.plot()->xAxis->range(), QCPRange(9.5, 29.5));
        QCOMPARE(view.findChild<QLabel*>("rows")->text(), QString("rows 10–29 of 40"));
        // Clicking a cell of the zoomed map selects that row.
        view.plot()->replot();
        QSignalSpy rows(&view, &FrameView::rowSelected);
        QTest::mouseClick(view.plot(), Qt::LeftButton, {}, cell_pixel(view, 1, 22));
        QCOMPARE(rows.count(), 1);
        QCOMPARE(rows.at(0).at(1).toInt(), 22);
        // The window stays put across Frames while zoomed.
        view.setFrame(make_frame(kLayers, kRows, 41));
        QCOMPARE(view.visibleRows().first, 10);
        QCOMPARE(view.visibleRows().last, 30);

        QTest::mouseClick(view.findChild<QToolButton*>("fit"), Qt::LeftButton);
        QVERIFY(!view.zoomedIn());
        QCOMPARE(view.colorMap()->data()->keySize(), kRows);
        QVERIFY(view.findChild<QLabel*>("rows")->text().isEmpty());
    }

    // The buttons halve and double the width about the centre; the window never leaves the
    // context and never gets narrower than kMinRows.
    void zoom_buttons_keep_the_window_inside() {
        LayerMapsView view;
        QVERIFY(test::show_exposed(view, 900, 420));
        view.setFrame(make_frame(3, 400));
        auto* in = view.findChild<QToolButton*>("zoom_in");
        auto* out = view.findChild<QToolButton*>("zoom_out");
        QTest::mouseClick(in, Qt::LeftButton);
        QCOMPARE(view.visibleRows().first, 100);
        QCOMPARE(view.visibleRows().last, 300);
        for (int i = 0; i < 10; ++i) QTest::mouseClick(in, Qt::LeftButton);
        QCOMPARE(view.visibleRows().last - view.visibleRows().first, LayerMapsView::kMinRows);
        view.setVisibleRows(390, 450);  // past the end: slides back inside
        QCOMPARE(view.visibleRows().last, 400);
        QCOMPARE(view.visibleRows().first, 340);
        for (int i = 0; i < 4; ++i) QTest::mouseClick(out, Qt::LeftButton);
        QVERIFY(!view.zoomedIn());
    }

    // The wheel zooms about the row under the mouse; a drag pans and selects nothing.
    void wheel_zooms_and_drag_pans() {
        LayerMapsView view;
        QVERIFY(test::show_exposed(view, 900, 420));
        view.setFrame(make_frame(kLayers, 400));
        view.plot()->replot();
        const QPoint at = cell_pixel(view, 1, 100);
        QWheelEvent wheel(at, view.plot()->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.plot(), &wheel);
        QVERIFY(view.zoomedIn());
        const RowWindow w = view.visibleRows();
        QVERIFY2(w.last - w.first < 400 && w.first <= 100 && w.last > 100,
                 qPrintable(QString("%1..%2").arg(w.first).arg(w.last)));
        view.plot()->replot();

        QSignalSpy rows(&view, &FrameView::rowSelected);
        const QPoint from = cell_pixel(view, 1, (w.first + w.last) / 2);
        QTest::mousePress(view.plot(), Qt::LeftButton, {}, from);
        QMouseEvent move(QEvent::MouseMove, from + QPoint(-200, 0),
                         view.plot()->mapToGlobal(from + QPoint(-200, 0)), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(view.plot(), &move);
        QTest::mouseRelease(view.plot(), Qt::LeftButton, {}, from + QPoint(-200, 0));
        QCOMPARE(rows.count(), 0);
        // Dragging left shows later rows, the same width.
        QVERIFY2(view.visibleRows().first > w.first,
                 qPrintable(QString::number(view.visibleRows().first)));
        QCOMPARE(view.visibleRows().last - view.visibleRows().first, w.last - w.first);
    }

    // A row selected elsewhere outside the shown rows comes into view; the overview frames the
    // shown rows and a click in it moves the detail there.
    void selection_and_overview_move_the_window() {
        LayerMapsView view;
        QVERIFY(test::show_exposed(view, 900, 420));
        view.setFrame(make_frame(kLayers, 1000));
        view.setVisibleRows(0, 100);
        view.setSelection(2, 700);
        const RowWindow w = view.visibleRows();
        QVERIFY(w.first <= 700 && 700 < w.last);
        QCOMPARE(w.last - w.first, 100);

        view.overview()->replot();
        QCPItemRect* frame = nullptr;
        for (int i = 0; i < view.overview()->itemCount(); ++i)
            if (auto* r = qobject_cast<QCPItemRect*>(view.overview()->item(i))) frame = r;
        QVERIFY(frame);
        QCOMPARE(frame->topLeft->coords().x(), w.first - 0.5);
        QCOMPARE(frame->bottomRight->coords().x(), w.last - 0.5);
        const QPoint at(int(view.overview()->xAxis->coordToPixel(250)),
                        view.overview()->axisRect()->center().y());
        QTest::mouseClick(view.overview(), Qt::LeftButton, {}, at);
        const RowWindow moved = view.visibleRows();
        QVERIFY2(std::abs((moved.first + moved.last) / 2 - 250) <= 6,
                 qPrintable(QString("%1..%2").arg(moved.first).arg(moved.last)));
    }

    // 100,000 rows zoomed to 100: the detail reads those rows only and holds their values.
    void a_hundred_thousand_rows_zoom_to_exact_cells() {
        LayerMapsView view;
        QVERIFY(test::show_exposed(view, 900, 420));
        constexpr int kBig = 100000;
        view.setFrame(make_frame(4, kBig));
        view.setVisibleRows(50000, 50100);
        QCPColorMapData* data = view.colorMap()->data();
        QCOMPARE(data->keySize(), 100);
        for (int i : {0, 50, 99})
            QCOMPARE(data->cell(i, 2), double(test::brightness_of(2, 50000 + i, kBig)));
    }
};

QTEST_MAIN(TestLayerMapsView)
#include "test_layer_maps_view.moc"
