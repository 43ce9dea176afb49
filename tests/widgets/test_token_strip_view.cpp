// Token strip: one chip per row of the shown layer, coloured dark → bright by brightness, hover
// text naming the record, click / shift-click selection, and the edit requests it sends. At
// 100,000 rows the canvas makes chips only for the lines it paints, and the strip's chips (their
// widths, colours) and its exported table follow the Frame's rows.
#include <QScrollArea>
#include <QScrollBar>
#include <QToolTip>
#include <QtTest>

#include "frame_builder.h"
#include "widgets/row_text.h"
#include "widgets/token_chip_canvas.h"
#include "widgets/token_strip_view.h"

using namespace kvw;
using test::make_frame;

namespace {

constexpr int kLayers = 4;
constexpr int kRows = 40;

// The colour painted just inside a chip's left edge (the text starts further in).
QColor chip_fill(TokenStripView& view, int row) {
    const QRect r = view.canvas()->chipRect(row);
    return view.canvas()->grab().toImage().pixelColor(r.left() + 2, r.center().y());
}

int row_with_brightness(int layer, float value) {
    for (int r = 0; r < test::layer_rows(layer, kRows); ++r)
        if (test::brightness_of(layer, r, kRows) == value) return r;
    return -1;
}

// Layer 0 of `rows` rows holding records 0.. in order; record id's piece is 1 + id % 5 letters,
// even rows are at full brightness and odd rows dark.
FramePtr long_frame(int rows) {
    auto f = std::make_shared<Frame>();
    f->brightness_max = 255.0f;
    std::vector<LedgerRecord> ledger(static_cast<size_t>(rows));
    for (int id = 0; id < rows; ++id) {
        ledger[size_t(id)].id = id;
        ledger[size_t(id)].piece = std::string(size_t(1 + id % 5), 'w');
    }
    f->ledger = LedgerRecords(std::move(ledger), 1024);
    LayerFrame lf;
    std::vector<int64_t> ids(static_cast<size_t>(rows));
    std::vector<float> brightness;
    for (int r = 0; r < rows; ++r) {
        ids[size_t(r)] = r;
        brightness.push_back(r % 2 ? 0.0f : 255.0f);
    }
    lf.record_brightness = ChunkedRecords<float>(std::move(brightness), 1024);  // row r holds id r
    lf.rope_pos = std::vector<int32_t>(ids.begin(), ids.end());
    lf.pos2ledger = std::move(ids);
    f->layers.push_back(std::move(lf));
    return f;
}

}  // namespace

class TestTokenStripView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::use_workbench_look();
        qRegisterMetaType<kvw::ActionList>();
    }

    void one_chip_per_row_of_the_selected_layer() {
        TokenStripView view;
        view.setFrame(make_frame(kLayers, kRows));
        QCOMPARE(view.canvas()->chipCount(), test::layer_rows(0, kRows));
        view.setSelection(3, -1);
        QCOMPARE(view.layer(), 3);
        QCOMPARE(view.canvas()->chipCount(), test::layer_rows(3, kRows));
    }

    void chips_go_dark_to_bright() {
        TokenStripView view;
        QVERIFY(test::show_exposed(view, 800, 300));
        view.setFrame(make_frame(kLayers, kRows));
        const int dark = row_with_brightness(0, 0.0f);
        const int bright = row_with_brightness(0, 255.0f);
        QVERIFY(dark >= 0 && bright >= 0);
        QVERIFY2(test::near(chip_fill(view, dark), QColor("#000004"), 3),
                 qPrintable(chip_fill(view, dark).name()));
        QVERIFY2(test::near(chip_fill(view, bright), QColor("#fcffa4"), 3),
                 qPrintable(chip_fill(view, bright).name()));
        // Brighter rows paint lighter chips, whatever the scale in between.
        std::vector<std::pair<float, double>> samples;
        for (int r = 0; r < 12; ++r)
            samples.emplace_back(test::brightness_of(0, r, kRows),
                                 test::luminance(chip_fill(view, r)));
        std::sort(samples.begin(), samples.end());
        for (size_t i = 1; i < samples.size(); ++i)
            QVERIFY(samples[i].second >= samples[i - 1].second);
    }

    void hover_names_the_record() {
        TokenStripView view;
        auto frame = make_frame(kLayers, kRows);
        view.setFrame(frame);
        view.setSelection(2, -1);
        const int row = 6;
        const int64_t id = test::ledger_of(2, row);
        const QString tip = view.tokenToolTip(row);
        for (const QString& part :
             {QString("ledger %1").arg(id), QString("token %1").arg(100 + id),
              QString("rope_pos %1").arg(test::rope_of(2, row)),
              QString("born tick %1").arg(test::born_of(id)),
              QString("brightness %1").arg(test::brightness_of(2, row, kRows), 0, 'f', 1),
              QString(entry_kind_name(frame->ledger[size_t(id)].kind))})
            QVERIFY2(tip.contains(part), qPrintable(tip + " lacks " + part));
        QVERIFY(view.tokenToolTip(kRows).isEmpty());
    }

    void help_event_shows_the_tooltip() {
        TokenStripView view;
        QVERIFY(test::show_exposed(view, 800, 300));
        view.setFrame(make_frame(kLayers, kRows));
        const QPoint at = view.canvas()->chipRect(4).center();
        QHelpEvent help(QEvent::ToolTip, at, view.canvas()->mapToGlobal(at));
        QCoreApplication::sendEvent(view.canvas(), &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QCOMPARE(QToolTip::text(), view.tokenToolTip(4));
        QToolTip::hideText();
    }

    void whitespace_stays_visible() {
        QCOMPARE(visible_piece("▁the", 1), QString("·the"));
        QCOMPARE(visible_piece("a b", 1), QString("a·b"));
        QCOMPARE(visible_piece("<0x0A>", 1), QString("↵"));
        QCOMPARE(visible_piece("", 77), QString("#77"));
    }

    void click_and_shift_click_select_a_pair() {
        TokenStripView view;
        QVERIFY(test::show_exposed(view, 800, 300));
        view.setFrame(make_frame(kLayers, kRows));
        view.setSelection(1, -1);
        QSignalSpy rows(&view, &FrameView::rowSelected);
        QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, view.canvas()->chipRect(9).center());
        QCOMPARE(rows.count(), 1);
        QCOMPARE(rows.at(0).at(0).toInt(), 1);
        QCOMPARE(rows.at(0).at(1).toInt(), 9);
        QTest::mouseClick(view.canvas(), Qt::LeftButton, Qt::ShiftModifier,
                          view.canvas()->chipRect(10).center());
        QCOMPARE(view.firstRow(), 9);
        QCOMPARE(view.secondRow(), 10);
        // The window echoes the selection back: the pair survives.
        view.setSelection(1, 9);
        QCOMPARE(view.secondRow(), 10);
        // A selection made elsewhere replaces it.
        view.setSelection(1, 20);
        QCOMPARE(view.firstRow(), 20);
        QCOMPARE(view.secondRow(), -1);
    }

    void delete_sends_the_selected_rows() {
        TokenStripView view;
        view.setFrame(make_frame(kLayers, kRows));
        view.setSelection(2, 7);
        QSignalSpy actions(&view, &FrameView::actionsRequested);
        view.requestDelete();
        QCOMPARE(actions.count(), 1);
        QCOMPARE(actions.at(0).at(0).value<ActionList>(),
                 (ActionList{Action{DeleteAction{7}, {}}}));
        QCOMPARE(actions.at(0).at(1).toBool(), false);
        view.setThisLayerOnly(true);
        view.setApplyNow(true);
        view.requestDelete();
        QCOMPARE(actions.at(1).at(0).value<ActionList>(),
                 (ActionList{Action{DeleteAction{7}, {2}}}));
        QCOMPARE(actions.at(1).at(1).toBool(), true);
    }

    void text_edits_name_kind_rows_and_text() {
        TokenStripView view;
        QVERIFY(test::show_exposed(view, 800, 300));
        view.setFrame(make_frame(kLayers, kRows));
        view.setSelection(1, 12);
        QSignalSpy text(&view, &FrameView::textActionRequested);
        view.requestReplacePair("merged");  // one token selected: not a pair
        QCOMPARE(text.count(), 0);
        QTest::mouseClick(view.canvas(), Qt::LeftButton, Qt::ControlModifier,
                          view.canvas()->chipRect(11).center());
        view.requestReplacePair("merged");
        QCOMPARE(text.count(), 1);
        const QList<QVariant> replace = text.takeFirst();
        QCOMPARE(replace.at(0).value<TextActionKind>(), TextActionKind::ReplacePair);
        QCOMPARE(replace.at(1).toInt(), 1);
        QCOMPARE(replace.at(2).toInt(), 11);  // lower row first, whatever the click order
        QCOMPARE(replace.at(3).toInt(), 12);
        QCOMPARE(replace.at(4).toString(), QString("merged"));
        view.setSelection(1, 5);
        view.requestInsertBefore(" new words");
        const QList<QVariant> insert = text.takeFirst();
        QCOMPARE(insert.at(0).value<TextActionKind>(), TextActionKind::Insert);
        QCOMPARE(insert.at(2).toInt(), 5);
        QCOMPARE(insert.at(4).toString(), QString(" new words"));
    }

    void thousands_of_tokens_lay_out_in_order() {
        TokenStripView view;
        QVERIFY(test::show_exposed(view, 800, 300));
        view.setFrame(make_frame(2, 8192));
        TokenChipCanvas* canvas = view.canvas();
        QCOMPARE(canvas->chipCount(), 8192);
        // Reading order: each chip right of its predecessor or on a lower line; hit-testing
        // finds every sampled chip at its own centre.
        for (int r = 1; r < 8192; ++r) {
            const QRect a = canvas->chipRect(r - 1), b = canvas->chipRect(r);
            QVERIFY(b.top() > a.top() || (b.top() == a.top() && b.left() > a.right()));
            QVERIFY(b.right() < canvas->width());
        }
        for (int r : {0, 1, 517, 4096, 8191})
            QCOMPARE(canvas->chipAt(canvas->chipRect(r).center()), r);
    }

    void a_canvas_of_100k_chips_makes_only_the_chips_it_paints() {
        constexpr int kChips = 100000;
        QScrollArea scroll;
        auto* canvas = new TokenChipCanvas;
        scroll.setWidget(canvas);
        scroll.setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        scroll.setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
        std::vector<int> asked;
        canvas->setAvailableWidth(400);
        canvas->setChips(std::vector<int>(kChips, 20), [&asked](int row) {
            asked.push_back(row);
            return TokenChip{QString::number(row), Qt::white};
        });
        QVERIFY(test::show_exposed(scroll, 420, 300));
        QCOMPARE(canvas->chipCount(), kChips);
        for (int target : {0, 70000, kChips - 1}) {
            scroll.ensureVisible(0, canvas->chipRect(target).center().y());
            asked.clear();
            canvas->repaint();
            // Only chips of lines that meet the viewport, the target's among them.
            const QRect shown(canvas->mapFrom(scroll.viewport(), QPoint(0, 0)),
                              scroll.viewport()->size());
            QVERIFY(!asked.empty());
            QVERIFY(std::find(asked.begin(), asked.end(), target) != asked.end());
            for (int row : asked) {
                const QRect r = canvas->chipRect(row);
                QVERIFY2(r.bottom() >= shown.top() - 3 && r.top() <= shown.bottom() + 3,
                         qPrintable(QString("row %1 at y %2, shown %3..%4")
                                        .arg(row)
                                        .arg(r.top())
                                        .arg(shown.top())
                                        .arg(shown.bottom())));
            }
            QVERIFY(asked.size() < 1000);
        }
    }

    void at_100k_rows_chips_and_export_follow_the_frame() {
        constexpr int kLong = 100000;
        TokenStripView view;
        QVERIFY(test::show_exposed(view, 800, 300));
        const FramePtr frame = long_frame(kLong);
        view.setFrame(frame);
        TokenChipCanvas* canvas = view.canvas();
        QCOMPARE(canvas->chipCount(), kLong);
        view.setSelection(0, 70000);  // scrolls there
        // Chip widths differ by their pieces' widths, measured here: row r holds piece
        // 1 + r % 5 letters; the fill is bright on even rows, dark on odd ones.
        const QFontMetrics fm(canvas->font());
        const auto piece_width = [&fm](int row) {
            return fm.horizontalAdvance(QString(1 + row % 5, QChar('w')));
        };
        for (int r = 70001; r < 70010; ++r)
            QCOMPARE(canvas->chipRect(r).width() - canvas->chipRect(70000).width(),
                     piece_width(r) - piece_width(70000));
        for (int r = 70000; r < 70010; ++r) {
            const QRect chip = canvas->chipRect(r);
            const QColor fill = canvas->grab(chip).toImage().pixelColor(2, chip.height() / 2);
            const QColor expected(r % 2 ? "#000004" : "#fcffa4");
            QVERIFY2(test::near(fill, expected, 3),
                     qPrintable(QString("row %1: %2").arg(r).arg(fill.name())));
        }
        // Export: every row, whatever is on screen.
        const ViewTable table = view.table();
        QCOMPARE(int(table.rows.size()), kLong);
        for (int r : {0, 70000, kLong - 1}) {
            QCOMPARE(table.rows[r][1].toInt(), r);
            QCOMPARE(table.rows[r][4].toString(), QString(1 + r % 5, QChar('w')));
            QCOMPARE(table.rows[r][6].toFloat(), r % 2 ? 0.0f : 255.0f);
        }
    }
};

QTEST_MAIN(TestTokenStripView)
#include "test_token_strip_view.moc"
