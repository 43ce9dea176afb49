// Invariants panel: one row per named invariant, PASS/FAIL in words and colour, the tick each
// last held, the failing layer/row/detail, a click on a failure selecting its row, drift text;
// failures listed first; an invariant that does not apply N/A in a neutral colour with why.
#include <QLabel>
#include <QTableWidget>
#include <QtTest>

#include "frame_builder.h"
#include "widgets/invariants_panel.h"

using namespace kvw;
using test::make_frame;

namespace {

QString text(QTableWidget* t, int row, int column) { return t->item(row, column)->text(); }

}  // namespace

class TestInvariantsPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    void all_passing() {
        InvariantsPanel panel;
        auto frame = make_frame(4, 40, 12);
        panel.setFrame(frame);
        auto* table = panel.findChild<QTableWidget*>("invariants");
        QCOMPARE(table->rowCount(), int(frame->invariants.size()));
        for (int i = 0; i < table->rowCount(); ++i) {
            QCOMPARE(text(table, i, InvariantsPanel::Name),
                     QString::fromStdString(frame->invariants[size_t(i)].name));
            QCOMPARE(text(table, i, InvariantsPanel::Status), QString("PASS"));
            QCOMPARE(text(table, i, InvariantsPanel::LastHeld), QString("12"));
            const QColor bg = table->item(i, InvariantsPanel::Status)->background().color();
            QVERIFY2(bg.green() > bg.red(), qPrintable(bg.name()));
            QVERIFY(text(table, i, InvariantsPanel::Detail).isEmpty());
        }
        QVERIFY(!panel.findChild<QLabel*>("summary")->text().contains("FAIL"));
    }

    void a_failure_is_red_with_its_detail() {
        InvariantsPanel panel;
        QVERIFY(test::show_exposed(panel, 600, 260));
        auto frame = make_frame(4, 40, 12);
        frame->invariants[1] = {"ids_live", false, 9,
                                2,          17,    "pos2ledger[17] = 19 is not live in layer 2"};
        panel.setFrame(frame);
        auto* table = panel.findChild<QTableWidget*>("invariants");
        // The failure is listed first.
        QCOMPARE(text(table, 0, InvariantsPanel::Name), QString("ids_live"));
        QCOMPARE(text(table, 0, InvariantsPanel::Status), QString("FAIL"));
        QCOMPARE(text(table, 0, InvariantsPanel::LastHeld), QString("9"));
        QCOMPARE(text(table, 0, InvariantsPanel::Layer), QString("2"));
        QCOMPARE(text(table, 0, InvariantsPanel::Row), QString("17"));
        QCOMPARE(text(table, 0, InvariantsPanel::Detail),
                 QString("pos2ledger[17] = 19 is not live in layer 2"));
        // Red as painted, not just as set: sample the status cell of the grabbed table.
        const QRect cell = table->visualItemRect(table->item(0, InvariantsPanel::Status));
        const QColor painted =
            table->viewport()->grab().toImage().pixelColor(cell.left() + 3, cell.top() + 3);
        QVERIFY2(painted.red() > painted.green() + 40 && painted.red() > painted.blue() + 40,
                 qPrintable(painted.name()));
        QVERIFY(panel.findChild<QLabel*>("summary")->text().contains("1 of 4 invariants FAIL"));

        QSignalSpy rows(&panel, &FrameView::rowSelected);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                          table->visualItemRect(table->item(0, 0)).center());
        QCOMPARE(rows.count(), 1);
        QCOMPARE(rows.at(0).at(0).toInt(), 2);
        QCOMPARE(rows.at(0).at(1).toInt(), 17);
        // A passing invariant selects nothing.
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                          table->visualItemRect(table->item(1, 0)).center());
        QCOMPARE(rows.count(), 1);
    }

    // A failure listed last in the Frame comes first in the table (and a click there still
    // selects its row); one that does not apply says why, in neither red nor green, and comes
    // last; the summary counts the others.
    void failures_first_and_not_applicable_in_neutral() {
        InvariantsPanel panel;
        QVERIFY(test::show_exposed(panel, 700, 300));
        auto frame = make_frame(4, 40, 12);
        frame->invariants.insert(frame->invariants.begin(),
                                 {"wlod_budget", true, 12, -1, -1, {}, "needs a policy: focus"});
        frame->invariants.back() = {
            "rope_policy", false, 9, 1, 6, "final_index: phase 99 at row 6"};
        panel.setFrame(frame);
        auto* table = panel.findChild<QTableWidget*>("invariants");
        QCOMPARE(table->rowCount(), 5);
        QCOMPARE(text(table, 0, InvariantsPanel::Name), QString("rope_policy"));
        QCOMPARE(text(table, 0, InvariantsPanel::Status), QString("FAIL"));
        QCOMPARE(text(table, 4, InvariantsPanel::Name), QString("wlod_budget"));
        QCOMPARE(text(table, 4, InvariantsPanel::Status), QString("N/A"));
        QCOMPARE(text(table, 4, InvariantsPanel::Detail), QString("needs a policy: focus"));
        QCOMPARE(text(table, 1, InvariantsPanel::Name), QString("rows_aligned"));  // list order
        const QImage image = table->viewport()->grab().toImage();
        const QRect cell = table->visualItemRect(table->item(4, InvariantsPanel::Status));
        const QColor neutral = image.pixelColor(cell.left() + 3, cell.top() + 3);
        QVERIFY2(std::abs(neutral.red() - neutral.green()) < 12 &&
                     std::abs(neutral.green() - neutral.blue()) < 12,
                 qPrintable(neutral.name()));
        const QString summary = panel.findChild<QLabel*>("summary")->text();
        QVERIFY2(
            summary.contains("1 of 4 invariants FAIL") && summary.contains("1 more do not apply"),
            qPrintable(summary));

        QSignalSpy rows(&panel, &FrameView::rowSelected);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                          table->visualItemRect(table->item(0, 0)).center());
        QCOMPARE(rows.count(), 1);
        QCOMPARE(rows.at(0).at(0).toInt(), 1);
        QCOMPARE(rows.at(0).at(1).toInt(), 6);
        QCOMPARE(panel.table().rows[0][0].toString(), QString("rope_policy"));
    }

    void never_held_shows_a_dash() {
        InvariantsPanel panel;
        auto frame = make_frame(4, 40, 12);
        frame->invariants[0] = {
            "rows_aligned", false, -1, 0, 3, "layer 0 has 40 rows, the cache 39"};
        panel.setFrame(frame);
        QCOMPARE(text(panel.findChild<QTableWidget*>("invariants"), 0, InvariantsPanel::LastHeld),
                 QString("—"));
    }

    void drift_summary() {
        InvariantsPanel panel;
        auto frame = make_frame(4, 40, 12, /*drift=*/false);
        panel.setFrame(frame);
        QVERIFY(panel.findChild<QLabel*>("drift")->text().contains("not measured"));
        frame = make_frame(4, 40, 12, /*drift=*/true);
        frame->max_drift = 0.0125f;
        frame->first_diverging_layer = 3;
        frame->k_type = "bf16";
        frame->v_type = "f32";
        frame->drift_tolerance = 1e-5f + 1.0f / 128;
        panel.setFrame(frame);
        const QString drift = panel.findChild<QLabel*>("drift")->text();
        QVERIFY2(drift.contains("0.0125") && drift.contains("first diverging layer 3") &&
                     drift.contains("against a fresh pass over its own tokens") &&
                     drift.contains("tolerance 0.0078 (K bf16 / V f32"),
                 qPrintable(drift));
    }
};

QTEST_MAIN(TestInvariantsPanel)
#include "test_invariants_panel.moc"
