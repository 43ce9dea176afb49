// Timeline: points accumulate over successive frames, a frame at the same tick replaces its
// point, a tick going backwards drops the later points, a new prompt starts over; rows per layer (a
// line per layer for few layers, min/mean/max for many), mean brightness and measured drift are
// plotted.
#include <QtTest>
#include <cmath>

#include "frame_builder.h"
#include "qcustomplot.h"
#include "widgets/timeline_view.h"
#include "widgets/view_colors.h"

using namespace kvw;
using test::make_frame;

namespace {

QCPGraph* graph_named(TimelineView& view, const QString& name) {
    for (int i = 0; i < view.plot()->graphCount(); ++i)
        if (view.plot()->graph(i)->name() == name) return view.plot()->graph(i);
    return nullptr;
}

// (key, value) pairs of a graph, in key order.
std::vector<std::pair<double, double>> points(QCPGraph* g) {
    std::vector<std::pair<double, double>> out;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        out.emplace_back(it->key, it->value);
    return out;
}

// The plottables the view's legends list, read as pointers only: an entry left for a removed
// graph points at freed memory.
std::vector<QCPAbstractPlottable*> legend_entries(TimelineView& view) {
    std::vector<QCPAbstractPlottable*> out;
    for (QCPLayoutElement* e : view.plot()->plotLayout()->elements(true))
        if (auto* legend = qobject_cast<QCPLegend*>(e))
            for (int i = 0; i < legend->itemCount(); ++i)
                if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
                    out.push_back(item->plottable());
    return out;
}

bool plot_has(TimelineView& view, QCPAbstractPlottable* p) {
    for (int i = 0; i < view.plot()->plottableCount(); ++i)
        if (view.plot()->plottable(i) == p) return true;
    return false;
}

std::shared_ptr<Frame> frame_at(int layers, int rows, int64_t tick, double total_ms,
                                bool drift = false) {
    auto f = make_frame(layers, rows, tick, drift);
    f->timings.total_ms = total_ms;
    return f;
}

}  // namespace

class TestTimelineView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    // Every legend entry gets the width its name needs, the legends stay side by side within the
    // view, and every panel is tall enough for its axis title, at the docked size of 1,024 x 700
    // (496 x 105, where a fixed three entries a line cut "brightness" and "layer 0" short and
    // panels 40 px tall clipped their titles), narrow and wide; the single-line panels are drawn
    // in no layer's colour.
    void legend_names_are_not_cut() {
        for (const QSize size : {QSize(496, 105), QSize(300, 300), QSize(1600, 240)}) {
            TimelineView view;
            QVERIFY(test::show_exposed(view, size.width(), size.height()));
            for (int tick = 0; tick < 20; ++tick) view.setFrame(frame_at(4, 20, tick, 1.0));
            view.plot()->replot();
            double right = 0;
            int entries = 0;
            for (QCPLayoutElement* e : view.plot()->plotLayout()->elements(true))
                if (auto* legend = qobject_cast<QCPLegend*>(e)) {
                    QVERIFY(legend->outerRect().left() >= right - 0.5);
                    right = legend->outerRect().right();
                    for (int i = 0; i < legend->itemCount(); ++i) {
                        QCPAbstractLegendItem* item = legend->item(i);
                        if (!item) continue;  // a wrapped grid's empty cell
                        ++entries;
                        QVERIFY2(item->outerRect().width() >= item->minimumOuterSizeHint().width(),
                                 qPrintable(QString("%1x%2: entry %3 is %4 px of %5")
                                                .arg(size.width())
                                                .arg(size.height())
                                                .arg(i)
                                                .arg(item->outerRect().width())
                                                .arg(item->minimumOuterSizeHint().width())));
                    }
                }
            QCOMPARE(entries, 5 + 4);  // the latency steps and the layers
            // A panel is as tall as its axis title is long: the view asks for the height (its
            // dock scrolls) rather than clip "mean brightness".
            for (QCPAxisRect* panel : view.plot()->axisRects()) {
                const QCPAxis* y = panel->axis(QCPAxis::atLeft);
                const int title = QFontMetrics(y->labelFont()).horizontalAdvance(y->label());
                QVERIFY2(panel->rect().height() >= title,
                         qPrintable(QString("%1x%2: '%3' %4 px in a panel %5 px tall")
                                        .arg(size.width())
                                        .arg(size.height())
                                        .arg(y->label())
                                        .arg(title)
                                        .arg(panel->rect().height())));
            }
            QVERIFY2(right <= view.plot()->width(), qPrintable(QString::number(right)));
            for (int l = 0; l < 4; ++l)
                for (const char* single : {"mean brightness", "max drift"})
                    QVERIFY(graph_named(view, single)->pen().color() != series_color(l));
        }
    }

    // Up to 150 ticks in views of a few sizes (510 x 170: the docked timeline at 1,024 x 700): at
    // every length of the run the tick labels of every panel that shows them stay apart (not
    // "0 50100150"), at least two of them; a wide view gets more labels than a narrow one.
    void tick_labels_do_not_run_together() {
        int narrow_labels = 0, wide_labels = 0;
        for (const QSize size : {QSize(300, 300), QSize(510, 170), QSize(1600, 240)}) {
            TimelineView view;
            QVERIFY(test::show_exposed(view, size.width(), size.height()));
            int tick = 0;
            for (const int last : {30, 60, 100, 140, 150}) {
                for (; tick <= last; ++tick) view.setFrame(frame_at(2, 20, tick, 1.0));
                QTest::qWait(20);  // the queued replots: the ticks follow the laid-out width
                int panels = 0;
                for (QCPAxisRect* rect : view.plot()->axisRects()) {
                    QCPAxis* x = rect->axis(QCPAxis::atBottom);
                    if (!x->tickLabels()) continue;
                    ++panels;
                    const QFontMetricsF metrics(x->tickLabelFont());
                    const QVector<double> ticks = x->tickVector();
                    const QVector<QString> labels = x->tickVectorLabels();
                    QVERIFY2(ticks.size() >= 2, qPrintable(QString::number(ticks.size())));
                    for (int i = 0; i + 1 < ticks.size(); ++i) {
                        const double right =
                            x->coordToPixel(ticks[i]) + metrics.horizontalAdvance(labels[i]) / 2;
                        const double left = x->coordToPixel(ticks[i + 1]) -
                                            metrics.horizontalAdvance(labels[i + 1]) / 2;
                        QVERIFY2(left - right >= 5,
                                 qPrintable(QString("%1x%2, ticks 0-%3: '%4' and '%5' %6 px apart")
                                                .arg(size.width())
                                                .arg(size.height())
                                                .arg(last)
                                                .arg(labels[i], labels[i + 1])
                                                .arg(left - right)));
                    }
                    if (last == 150)
                        (size.width() < 400 ? narrow_labels : wide_labels) = int(ticks.size());
                }
                QVERIFY(panels >= 2);
            }
        }
        QVERIFY2(wide_labels > narrow_labels,
                 qPrintable(QString("%1 vs %2").arg(wide_labels).arg(narrow_labels)));
    }

    void points_accumulate_per_tick() {
        TimelineView view;
        for (int t = 0; t < 5; ++t) view.setFrame(frame_at(4, 40 + t, t, 10.0 + t));
        QCOMPARE(view.history().points().size(), size_t(5));
        const auto total = points(graph_named(view, "total"));
        QCOMPARE(total.size(), size_t(5));
        for (int t = 0; t < 5; ++t) {
            QCOMPARE(total[size_t(t)].first, double(t));
            QCOMPARE(total[size_t(t)].second, 10.0 + t);
        }
        // One line per layer, holding that layer's rows.
        for (int l = 0; l < 4; ++l) {
            const auto rows = points(graph_named(view, QString("layer %1").arg(l)));
            QCOMPARE(rows.size(), size_t(5));
            QCOMPARE(rows.back().second, double(test::layer_rows(l, 44)));
        }
        // Mean brightness over every row of every layer, recomputed here.
        double sum = 0;
        int n = 0;
        for (int l = 0; l < 4; ++l)
            for (int r = 0; r < test::layer_rows(l, 44); ++r, ++n)
                sum += test::brightness_of(l, r, 44);
        QVERIFY(std::abs(points(graph_named(view, "mean brightness")).back().second - sum / n) <
                1e-3);
    }

    void same_tick_replaces_and_going_back_keeps_the_earlier_ticks() {
        TimelineView view;
        for (int t = 0; t < 6; ++t) view.setFrame(frame_at(4, 40 + t, t, 5 + t));
        view.setFrame(frame_at(4, 44, 5, 9));  // an edit after tick 5: same tick, new values
        auto total = points(graph_named(view, "total"));
        QCOMPARE(total.size(), size_t(6));
        QCOMPARE(total.back().second, 9.0);
        // Undo to tick 3: ticks 0-3 stay as they were plotted (tick 3's step times are those it
        // ran with, not the quiet replay's), tick 3's rows are the frame's, 4-5 go.
        view.setFrame(frame_at(4, 13, 3, 0.5));
        total = points(graph_named(view, "total"));
        QCOMPARE(total.size(), size_t(4));
        for (int t = 0; t < 4; ++t) {
            QCOMPARE(total[size_t(t)].first, double(t));
            QCOMPARE(total[size_t(t)].second, 5.0 + t);
        }
        QCOMPARE(points(graph_named(view, "layer 0")).back().second,
                 double(test::layer_rows(0, 13)));
        QCOMPARE(view.history().points().size(), size_t(4));
        QCOMPARE(view.table().rows.size(), 4);
        // Ticks after it come on as before.
        view.setFrame(frame_at(4, 44, 4, 7));
        QCOMPARE(points(graph_named(view, "total")).size(), size_t(5));
        // A new start of the same prompt goes back to tick 0: one point, the frame's rows.
        view.setFrame(frame_at(4, 12, 0, 3));
        total = points(graph_named(view, "total"));
        QCOMPARE(total.size(), size_t(1));
        QCOMPARE(points(graph_named(view, "layer 0")).back().second,
                 double(test::layer_rows(0, 12)));
        // Another prompt is another run, whatever its tick.
        view.setFrame(frame_at(4, 41, 1, 4));
        auto other = frame_at(4, 41, 2, 4);
        other->prompt = "another prompt";
        view.setFrame(other);
        QCOMPARE(view.history().points().size(), size_t(1));
    }

    void drift_only_where_measured() {
        TimelineView view;
        for (int t = 0; t < 6; ++t) view.setFrame(frame_at(4, 40, t, 1, /*drift=*/t % 3 == 2));
        const auto drift = points(graph_named(view, "max drift"));
        QCOMPARE(drift.size(), size_t(2));
        QCOMPARE(drift[0].first, 2.0);
        QCOMPARE(drift[1].first, 5.0);
        const float expected = test::drift_of(3, test::layer_rows(3, 40) - 1);
        QVERIFY(std::abs(drift[0].second - double(expected)) < 1e-12);
    }

    // Measured, rebuilt, measured again at the same tick: both values stay, the exact one on the
    // floor of the log axis (it once replaced the first and vanished below the axis).
    void drift_remeasured_at_the_same_tick_keeps_both() {
        TimelineView view;
        view.setFrame(frame_at(4, 40, 3, 1, /*drift=*/true));
        const double first = double(view.history().points().back().drifts.at(0));
        auto exact = frame_at(4, 40, 3, 1, /*drift=*/true);
        exact->max_drift = 0;
        view.setFrame(exact);
        view.setFrame(frame_at(4, 40, 3, 1));  // a later frame of the tick, no new measurement
        view.setFrame(exact);                  // the same measurement again: no new point
        const auto drift = points(graph_named(view, "max drift"));
        QCOMPARE(drift.size(), size_t(2));
        QCOMPARE(drift[0].first, 3.0);
        QCOMPARE(drift[1].first, 3.0);
        QVERIFY(std::abs(drift[0].second - first) < 1e-12);
        QCOMPARE(drift[1].second, kDriftFloor);
    }

    void many_layers_plot_min_mean_max() {
        TimelineView view;
        for (int t = 0; t < 3; ++t) view.setFrame(frame_at(22, 100, t, 1));
        QVERIFY(!graph_named(view, "layer 0"));
        QCOMPARE(points(graph_named(view, "min")).back().second, double(test::layer_rows(21, 100)));
        QCOMPARE(points(graph_named(view, "max")).back().second, double(test::layer_rows(0, 100)));
        double sum = 0;
        for (int l = 0; l < 22; ++l) sum += test::layer_rows(l, 100);
        QCOMPARE(points(graph_named(view, "mean")).back().second, sum / 22);
        // A new run with few layers gets a line per layer again.
        view.setFrame(frame_at(4, 40, 0, 1));
        QVERIFY(graph_named(view, "layer 3"));
        QVERIFY(!graph_named(view, "min"));
        QCOMPARE(points(graph_named(view, "layer 3")).size(), size_t(1));
    }

    // Loading a model with another layer count makes new row graphs: the legends list exactly
    // the graphs the plot holds, and drawing them works (a stale entry crashed the replot).
    void layer_count_changes_keep_the_legends_in_step() {
        TimelineView view;
        QVERIFY(test::show_exposed(view, 900, 400));
        for (const int layers : {4, 22, 2, 12, 4}) {
            for (int t = 0; t < 3; ++t) view.setFrame(frame_at(layers, 80, t, 1));
            const std::vector<QCPAbstractPlottable*> listed = legend_entries(view);
            for (QCPAbstractPlottable* p : listed) QVERIFY(plot_has(view, p));
            const int row_lines = layers <= TimelineView::kMaxLayerLines ? layers : 3;
            QCOMPARE(listed.size(), size_t(5 + row_lines));  // five step timings, then rows
            view.plot()->replot(QCustomPlot::rpImmediateRefresh);
            QVERIFY(!view.grab().isNull());
        }
    }
};

QTEST_MAIN(TestTimelineView)
#include "test_timeline_view.moc"
