// Policy view: under streaming-llm with S sinks and W window rows, every layer shows the first S
// records as sinks, the last W as window and every other one as evicted — known from the
// algorithm's definition, not from the code under test — in the roles and in the pixels; under
// h2o the threshold is the weakest high-value score once B rows are full; a click on a sink
// selects its row. At 100,000 records the view pools only the records it shows into at most a
// cell per pixel (zoomed in: one cell per record), those cells equal roles written down plainly
// here, and the exported table still has every record of every layer.
#include <QSignalSpy>
#include <QtTest>

#include "core/model/model_loader.h"
#include "core/session/session.h"
#include "frame_builder.h"
#include "widgets/policy_view.h"

using namespace kvw;

namespace {

// A Frame of `layers` x `records` built by hand, each record's role in each layer given by
// role_of(): the first 4 sinks, the last 1,000 the window, every 997th a high-value row scored
// id / records, a third of the rest live but unnamed (kept), in layer 1 every 50th never held,
// and the others evicted at tick id / 2 with score -id.
constexpr int kSinks = 4, kWindow = 1000;

PolicyRole role_of(int layer, int64_t id, int64_t records) {
    if (id < kSinks) return PolicyRole::Sink;
    if (id >= records - kWindow) return PolicyRole::Window;
    if (id % 997 == layer) return PolicyRole::HighValue;
    if ((id + layer) % 3 == 0) return PolicyRole::Kept;
    if (layer == 1 && id % 50 == 49) return PolicyRole::None;
    return PolicyRole::Evicted;
}

FramePtr built(int layers, int records) {
    auto f = std::make_shared<Frame>();
    f->tick = records;
    f->proposer = "streaming-llm";
    f->policy.budget = {kSinks, records / 997, kWindow};
    std::vector<LedgerRecord> ledger(static_cast<size_t>(records));
    for (int id = 0; id < records; ++id) {
        LedgerRecord& r = ledger[size_t(id)];
        r.id = id;
        r.piece = "tok";
        r.status.assign(size_t(layers), RowStatus::Live);
        r.removal.assign(size_t(layers), Removal{});
        for (int l = 0; l < layers; ++l)
            if (role_of(l, id, records) == PolicyRole::Evicted)
                r.removal[size_t(l)] = {id / 2, {RemovalReason::StreamingLoss, -float(id)}};
    }
    f->ledger = LedgerRecords(std::move(ledger), 1024);
    for (int l = 0; l < layers; ++l) {
        std::vector<int64_t> rows;
        LayerSelection s;
        for (int64_t id = 0; id < records; ++id) {
            const PolicyRole role = role_of(l, id, records);
            if (role == PolicyRole::Evicted || role == PolicyRole::None) continue;
            rows.push_back(id);
            if (role == PolicyRole::Sink) s.sinks.push_back(id);
            if (role == PolicyRole::Window) s.window.push_back(id);
            if (role == PolicyRole::HighValue) s.high_value.push_back({float(id) / records, id});
        }
        LayerFrame lf;
        lf.record_brightness =
            ChunkedRecords<float>(std::vector<float>(size_t(records), 0.0f), 1024);
        lf.rope_pos = std::vector<int32_t>(rows.begin(), rows.end());
        lf.pos2ledger = std::move(rows);
        f->layers.push_back(std::move(lf));
        f->selection.push_back(std::move(s));
    }
    return f;
}

FramePtr run(const std::string& policy, PolicyBudget budget, int ticks) {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.capacity = 128;
    o.proposer = policy;
    o.policy.budget = budget;
    o.sampling.seed = 4;
    Session s(o, load_model("synthetic:tiny"));
    s.start("in the beginning god created the heaven");
    for (int i = 0; i < ticks; ++i) s.step();
    return s.frame();
}

}  // namespace

class TestPolicyView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    void streaming_llm_shows_sinks_window_and_evicted() {
        const int S = 2, W = 4;
        const FramePtr frame = run("streaming-llm", {S, 0, W}, 6);
        const int64_t records = int64_t(frame->ledger.size());
        QVERIFY(records > S + W + 4);
        // Each tick appends the token it samples; the last record is that token, still live.
        const auto expected = [&](int64_t id) {
            if (id < S) return PolicyRole::Sink;
            if (id >= records - W) return PolicyRole::Window;
            return PolicyRole::Evicted;
        };

        PolicyView view;
        view.resize(int(records) * 12 + 140, 40 + 30 * int(frame->layers.size()));
        view.setFrame(frame);
        const QImage img = view.grab().toImage();
        if (qEnvironmentVariableIsSet("KVW_SHOTS"))
            img.save(qEnvironmentVariable("KVW_SHOTS") + "/policy.png");
        const PolicyRoles all = policy_roles(*frame);
        for (int l = 0; l < int(frame->layers.size()); ++l) {
            const std::vector<PolicyRole>& roles = all[size_t(l)];
            const QRectF band = view.bandRect(l);
            for (int64_t id = 0; id < records; ++id) {
                const QString where = QString("layer %1 record %2").arg(l).arg(id);
                QVERIFY2(roles[size_t(id)] == expected(id), qPrintable(where));
                const double x = (view.recordX(id) + view.recordX(id + 1)) / 2;
                QCOMPARE(img.pixelColor(int(x), int(band.center().y())),
                         PolicyView::roleColor(expected(id)));
            }
            QVERIFY(!eviction_threshold(*frame, l).has_value());  // B = 0
        }

        // A click on record 0 selects row 0 of that layer: sinks are the first rows.
        QSignalSpy rows(&view, &FrameView::rowSelected);
        const QRectF band1 = view.bandRect(1);
        QTest::mouseClick(
            &view, Qt::LeftButton, {},
            QPoint(int((view.recordX(0) + view.recordX(1)) / 2), int(band1.center().y())));
        QCOMPARE(rows.count(), 1);
        QCOMPARE(rows.takeFirst(), (QVariantList{1, 0}));
    }

    void at_100k_records_only_the_shown_window_is_pooled_and_export_has_every_record() {
        const int layers = 4, records = 100000;
        const FramePtr frame = built(layers, records);
        PolicyView view;
        QVERIFY(test::show_exposed(view, 900, 200));
        view.setFrame(frame);
        const int pixels = int(view.bandRect(0).width());

        // Every record shown, pooled: a cell per pixel at most, each the highest-ranked role of
        // the records it covers.
        QCOMPARE(view.visibleRecords().first, 0);
        QCOMPARE(view.visibleRecords().last, records);
        QCOMPARE(int(view.shownCells().size()), layers);
        for (int l = 0; l < layers; ++l) {
            const std::vector<PolicyRole>& cells = view.shownCells()[size_t(l)];
            QCOMPARE(int(cells.size()), pixels);
            for (int c = 0; c < pixels; ++c) {
                PolicyRole top = PolicyRole::None;
                for (int64_t id = int64_t(c) * records / pixels;
                     id < int64_t(c + 1) * records / pixels; ++id)
                    top = std::max(top, role_of(l, id, records));
                QVERIFY2(cells[size_t(c)] == top,
                         qPrintable(QString("layer %1 cell %2").arg(l).arg(c)));
            }
        }

        // Zoomed in on 200 records in the middle: a cell per record, those records' roles, in
        // the pixels too.
        const int first = records / 2 - 100;
        view.setVisibleRecords(first, first + 200);
        QVERIFY(view.zoomedIn());
        QCOMPARE(view.visibleRecords().last, first + 200);
        const QImage img = view.grab().toImage();
        for (int l = 0; l < layers; ++l) {
            const std::vector<PolicyRole>& cells = view.shownCells()[size_t(l)];
            QCOMPARE(int(cells.size()), 200);
            for (int i = 0; i < 200; ++i) {
                const PolicyRole expected = role_of(l, first + i, records);
                QVERIFY(cells[size_t(i)] == expected);
                const double x = (view.recordX(first + i) + view.recordX(first + i + 1)) / 2;
                QCOMPARE(img.pixelColor(int(x), int(view.bandRect(l).center().y())),
                         PolicyView::roleColor(expected));
            }
        }

        // A click on a live record in the zoomed window selects its row: the live records
        // before it.
        int64_t kept = first;
        while (role_of(2, kept, records) != PolicyRole::Kept) ++kept;
        int live_before = 0;
        for (int64_t id = 0; id < kept; ++id) {
            const PolicyRole role = role_of(2, id, records);
            live_before += role != PolicyRole::Evicted && role != PolicyRole::None;
        }
        QSignalSpy selected_rows(&view, &FrameView::rowSelected);
        QTest::mouseClick(&view, Qt::LeftButton, {},
                          QPoint(int((view.recordX(kept) + view.recordX(kept + 1)) / 2),
                                 int(view.bandRect(2).center().y())));
        QCOMPARE(selected_rows.count(), 1);
        QCOMPARE(selected_rows.takeFirst(), (QVariantList{2, live_before}));

        // The wheel zooms in twice as far about the mouse, a row selected outside the window
        // brings it into view, a double click shows every record again.
        const QPointF centre(view.recordX(records / 2), view.bandRect(0).center().y());
        QWheelEvent wheel(centre, view.mapToGlobal(centre), {}, {0, 120}, Qt::NoButton, {},
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(&view, &wheel);
        QCOMPARE(view.visibleRecords().last - view.visibleRecords().first, 100);
        QVERIFY(view.visibleRecords().first <= records / 2);
        QVERIFY(view.visibleRecords().last > records / 2);
        view.setSelection(0, 10);  // a record near the start, far outside the window
        const int64_t selected = frame->layers[0].pos2ledger.to_vector()[10];
        QVERIFY(view.visibleRecords().first <= selected && selected < view.visibleRecords().last);
        QTest::mouseDClick(&view, Qt::LeftButton, {}, centre.toPoint());
        QVERIFY(!view.zoomedIn());
        QCOMPARE(view.visibleRecords().last, records);

        // Export: every (layer, record) with a role, zoomed in or not.
        view.setVisibleRecords(first, first + 200);
        const ViewTable table = view.table();
        int64_t expected_rows = 0;
        for (int l = 0; l < layers; ++l)
            for (int64_t id = 0; id < records; ++id)
                expected_rows += role_of(l, id, records) != PolicyRole::None;
        QCOMPARE(int64_t(table.rows.size()), expected_rows);
        std::vector<int> live_rows(layers, 0);  // rows hold the live records in id order
        for (const QVariantList& row : table.rows) {
            const int l = row[0].toInt();
            const int64_t id = row[1].toLongLong();
            const PolicyRole role = role_of(l, id, records);
            QCOMPARE(row[2].toString(), QString(policy_role_name(role)));
            if (role == PolicyRole::Evicted) {
                QVERIFY(row[3].isNull());
                QCOMPARE(row[4].toFloat(), -float(id));
                QCOMPARE(row[5].toLongLong(), id / 2);
            } else {
                QCOMPARE(row[3].toInt(), live_rows[size_t(l)]++);
                if (role == PolicyRole::HighValue)
                    QCOMPARE(row[4].toFloat(), float(id) / records);
                else
                    QVERIFY(row[4].isNull());
            }
        }
    }

    void h2o_threshold_is_the_weakest_high_value_score() {
        const PolicyBudget budget{2, 3, 3};
        const FramePtr frame = run("h2o", budget, 5);
        PolicyView view;
        view.setFrame(frame);
        const ViewTable table = view.table();
        const int threshold_column = int(table.columns.indexOf("layer_threshold"));
        for (int l = 0; l < int(frame->layers.size()); ++l) {
            const auto& high = frame->selection[size_t(l)].high_value;
            QCOMPARE(int(high.size()), budget.budget);
            float weakest = high[0].first;
            for (const auto& [score, id] : high) weakest = std::min(weakest, score);
            QCOMPARE(eviction_threshold(*frame, l), std::optional<float>(weakest));
            for (const QVariantList& row : table.rows)
                if (row[0].toInt() == l) QCOMPARE(row[threshold_column].toFloat(), weakest);
        }
    }
};

QTEST_MAIN(TestPolicyView)
#include "test_policy_view.moc"
