// Ring view: the slab slot -> logical row mapping against a plainly written model of a ring,
// the export table, a click on a slot selecting the row it holds (and nothing on a free slot),
// the write pointer and the read ranges in one unit (slab rows), the legend and the tooltips,
// and an empty view under other layouts.
#include <QSignalSpy>
#include <QtTest>

#include "frame_builder.h"
#include "widgets/ring_view.h"

using namespace kvw;
using test::make_frame;

namespace {

// A ring of T 12, 2 sinks, head at ring slot 7, 10 rows held: the ring rows sit in slots
// 9, 10, 11, 2, 3, 4, 5, 6 (ring slots 7..11 then 0..4 offset by the sinks).
RingFrame ring_of_twelve() {
    RingFrame r;
    r.size = 12;
    r.sinks = 2;
    r.filled = 10;
    r.head = 7;
    r.write_pointer = (7 + 8) % 10;
    r.offset = 40;
    r.overwritten = 30;
    r.wraps = 3;
    r.last_read = {9, 12, 2, 7};
    return r;
}

}  // namespace

class TestRingView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    void slots_map_to_their_logical_rows() {
        const RingFrame r = ring_of_twelve();
        // Written out by hand: slot -> row.
        const int want[12] = {0, 1, 5, 6, 7, 8, 9, -1, -1, 2, 3, 4};
        for (int s = 0; s < 12; ++s) QCOMPARE(ring_slot_row(r, s), want[s]);
        QCOMPARE(ring_slot_row(r, 12), -1);
    }

    void table_and_click() {
        auto f = make_frame(2, 20);
        for (LayerFrame& l : f->layers) l.ring = ring_of_twelve();
        RingView view;
        QVERIFY(test::show_exposed(view, 600, 160));
        view.setFrame(f);
        const ViewTable t = view.table();
        QCOMPARE(t.rows.size(), 2);
        QCOMPARE(t.rows[1][0].toInt(), 1);
        QCOMPARE(t.rows[0][5].toInt(), 5);   // write pointer
        QCOMPARE(t.rows[0][8].toInt(), 3);   // wraps
        QCOMPARE(t.rows[0][9].toInt(), 9);   // tail part begins at the oldest slot
        QCOMPARE(t.rows[0][12].toInt(), 7);  // head part ends at the pointer's slab row

        QSignalSpy selected(&view, &FrameView::rowSelected);
        // Find slot 10 of layer 1 by scanning the canvas, click it: row 3.
        QPoint at;
        for (int x = 0; x < view.width() && at.isNull(); ++x)
            for (int y = 0; y < view.height() && at.isNull(); ++y) {
                const auto hit = view.slotAt(QPoint(x, y));
                if (hit && hit->first == 1 && hit->second == 10) at = QPoint(x + 2, y + 2);
            }
        QVERIFY(!at.isNull());
        QTest::mouseClick(&view, Qt::LeftButton, {}, at);
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected[0][0].toInt(), 1);
        QCOMPARE(selected[0][1].toInt(), 3);
    }

    // Per-row saturation: the table sums it per layer and counts the rows; the band caps a
    // clipped row's slot in red, and not its neighbour's.
    void saturation_heat() {
        auto f = make_frame(1, 20);
        RingFrame r = ring_of_twelve();
        r.saturated.assign(12, 0);
        r.saturated[9] = 4;  // row 2
        r.saturated[3] = 2;  // row 6
        f->layers[0].ring = r;
        RingView view;
        QVERIFY(test::show_exposed(view, 600, 160));
        view.setFrame(f);
        const ViewTable t = view.table();
        QCOMPARE(t.columns[14], QString("saturated"));
        QCOMPARE(t.rows[0][14].toLongLong(), 6);
        QCOMPARE(t.rows[0][15].toLongLong(), 2);
        // The top-left pixel inside a slot's cell, found through slotAt.
        const auto top_of = [&](int slot) {
            for (int y = 0; y < view.height(); ++y)
                for (int x = 0; x < view.width(); ++x) {
                    const auto hit = view.slotAt(QPoint(x, y));
                    if (hit && hit->second == slot) return QPoint(x + 2, y + 2);
                }
            return QPoint();
        };
        const QImage image = view.grab().toImage();
        const QColor clipped = image.pixelColor(top_of(9)), plain = image.pixelColor(top_of(10));
        QVERIFY2(clipped.red() > plain.red() + 40 && clipped.green() < plain.green(),
                 qPrintable(clipped.name() + " vs " + plain.name()));
    }

    // The pointer stands at ring slot 5, which is slab row 2 + 5 = 7: where the head part of the
    // last read ends ([2,7)). The counters line gives both in slab rows and says so; the table
    // has the slab row beside the ring slot; hovering a slot names its slab row, its logical
    // row and the marks that stand on it.
    void pointer_and_read_ranges_in_slab_rows() {
        const RingFrame r = ring_of_twelve();
        const QString counters = ring_counters_text(r, 0);
        QVERIFY2(counters.contains("slab rows: pointer 7, read [9,12)+[2,7)"),
                 qPrintable(counters));
        auto f = make_frame(1, 20);
        f->layers[0].ring = r;
        RingView view;
        QVERIFY(test::show_exposed(view, 700, 160));
        view.setFrame(f);
        const ViewTable t = view.table();
        const int slab_column = int(t.columns.indexOf("write_slab_row"));
        QVERIFY(slab_column >= 0);
        QCOMPARE(t.rows[0][slab_column].toInt(), 7);
        const auto tip_of = [&](int slot) {
            for (int y = 0; y < view.height(); ++y)
                for (int x = 0; x < view.width(); ++x) {
                    const auto hit = view.slotAt(QPoint(x, y));
                    if (hit && hit->second == slot) return view.toolTipAt(QPoint(x + 2, y + 2));
                }
            return QString();
        };
        const QString pointer = tip_of(7), tail = tip_of(9), free_slot = tip_of(8);
        QVERIFY2(pointer.contains("slab row 7") && pointer.contains("write pointer") &&
                     !pointer.contains("head part"),
                 qPrintable(pointer));
        QVERIFY2(tail.contains("slab row 9") && tail.contains("logical row 2") &&
                     tail.contains("tail part [9,12)") && !tail.contains("write pointer"),
                 qPrintable(tail));
        QVERIFY2(free_slot.contains("free"), qPrintable(free_slot));
        QVERIFY2(tip_of(6).contains("head part [2,7)"), qPrintable(tip_of(6)));
    }

    // Every colour and mark of the band has a legend entry with a sentence as its tooltip; the
    // swatches are the band's own colours; at a narrow width the legend takes more lines,
    // every entry inside the view and above the first band.
    void legend_names_every_colour_and_mark() {
        auto f = make_frame(1, 20);
        RingFrame r = ring_of_twelve();
        r.saturated.assign(12, 0);
        f->layers[0].ring = r;
        for (const int width : {900, 260}) {
            RingView view;
            QVERIFY(test::show_exposed(view, width, 220));
            view.setFrame(f);
            const ViewLegend& legend = view.legend();
            QStringList names;
            for (const LegendEntry& e : legend.entries()) names << e.name;
            for (const char* want : {"sink", "held row", "free", "clipped", "selected",
                                     "write pointer", "read: tail part", "read: head part"})
                QVERIFY2(names.contains(want), want);
            // The band's top, found through slotAt.
            int band_top = -1;
            for (int y = 0; y < view.height() && band_top < 0; ++y)
                if (view.slotAt(QPoint(view.width() / 2, y))) band_top = y;
            QVERIFY(band_top > 0);
            for (size_t i = 0; i < legend.entries().size(); ++i) {
                const QRectF box = legend.entryRect(i);
                QVERIFY2(box.right() <= width && box.bottom() < band_top,
                         qPrintable(legend.entries()[i].name));
                QCOMPARE(view.toolTipAt(box.center().toPoint()), legend.entries()[i].explanation);
                QVERIFY(legend.entries()[i].explanation.size() > 20);
            }
            if (width < 300) QVERIFY(legend.entryRect(legend.entries().size() - 1).top() > 10);
            const QImage image = view.grab().toImage();
            const auto swatch_of = [&](const char* name) {
                return image.pixelColor(
                    legend.swatchRect(size_t(names.indexOf(name))).center().toPoint());
            };
            // Slot 0 is a sink, slot 7 is free: the middle of their cells.
            const auto cell_of = [&](int slot) {
                for (int x = 0; x < view.width(); ++x) {
                    const auto hit = view.slotAt(QPoint(x, band_top + 9));
                    if (hit && hit->second == slot) return image.pixelColor(x + 3, band_top + 9);
                }
                return QColor();
            };
            QVERIFY(test::near(swatch_of("sink"), cell_of(0)));
            QVERIFY(test::near(swatch_of("free"), cell_of(7)));
        }
    }

    void empty_under_other_layouts() {
        RingView view;
        view.setFrame(make_frame(2, 20));
        QCOMPARE(view.table().rows.size(), 0);
        QVERIFY(!view.slotAt(QPoint(20, 30)));
    }
};

QTEST_MAIN(TestRingView)
#include "test_ring_view.moc"
