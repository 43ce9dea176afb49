// Policy view: under streaming-llm with S sinks and W window rows, every layer shows the first S
// records as sinks, the last W as window and every other one as evicted — known from the
// algorithm's definition, not from the code under test — in the roles and in the pixels; under
// h2o the threshold is the weakest high-value score once B rows are full; a click on a sink
// selects its row.
#include <QSignalSpy>
#include <QtTest>

#include "core/model/model_loader.h"
#include "core/session/session.h"
#include "frame_builder.h"
#include "widgets/policy_view.h"

using namespace kvw;

namespace {

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
        for (int l = 0; l < int(frame->layers.size()); ++l) {
            const std::vector<PolicyRole> roles = policy_roles(*frame, l);
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
