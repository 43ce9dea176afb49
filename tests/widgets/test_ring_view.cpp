// Ring view: the slab slot -> logical row mapping against a plainly written model of a ring,
// the export table, a click on a slot selecting the row it holds (and nothing on a free slot),
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

    void empty_under_other_layouts() {
        RingView view;
        view.setFrame(make_frame(2, 20));
        QCOMPARE(view.table().rows.size(), 0);
        QVERIFY(!view.slotAt(QPoint(20, 30)));
    }
};

QTEST_MAIN(TestRingView)
#include "test_ring_view.moc"
