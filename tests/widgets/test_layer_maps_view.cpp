// Layer maps: every map kind's cell values against the frame's formulas, rows a layer does not
// have left empty, clicks and setSelection, hover text, and the colours actually painted.
#include <QtTest>
#include <cmath>

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
};

QTEST_MAIN(TestLayerMapsView)
#include "test_layer_maps_view.moc"
