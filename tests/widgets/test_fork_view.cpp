// The fork dock (ARCHITECTURE §16): the session and its fork side by side, row by row. The
// reference is each session's own mirror (StateManager::tokens), never the view's code.
#include <QLabel>
#include <QTableWidget>
#include <QtTest>

#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "app/gui/view_docks.h"
#include "core/session/session.h"
#include "frame_builder.h"
#include "widgets/fork_view.h"
#include "window_test_support.h"

using namespace kvw;

namespace {

const char* const kPrompt = "The cache remembers what the model was told";

SessionOptions tiny_options() {
    SessionOptions o;
    o.model = "synthetic:tiny";
    o.backend = "cpu";
    return o;
}

// Column `name` of the view's table, row by row.
QVariantList column(const ViewTable& t, const QString& name) {
    const qsizetype c = t.columns.indexOf(name);
    QVariantList out;
    for (const QVariantList& row : t.rows) out << row[c];
    return out;
}

}  // namespace

class TestForkView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    // Two sessions from one prompt that part at tick 2 (one deletes row 3): the rows whose
    // tokens differ, and only those, are marked; each side's pieces are its session's.
    void rows_differ_where_the_sessions_hold_other_tokens() {
        Session a(tiny_options());
        a.start(kPrompt);
        a.step();
        a.step();
        std::unique_ptr<Session> b = a.clone();
        a.apply_now({Action{DeleteAction{3}, {}}});
        for (int i = 0; i < 3; ++i) {
            a.step();
            b->step();
        }
        ForkView view;
        QCOMPARE(view.table().rows.size(), qsizetype(0));
        QVERIFY(view.findChild<QLabel*>("forkSummary")->text().startsWith("No fork yet"));
        view.setFrame(a.frame());
        view.setForkFrame(b->frame());
        for (const int layer : {0, 2}) {
            view.setSelection(layer, -1);
            const std::vector<int32_t> ta = a.state().tokens(layer);
            const std::vector<int32_t> tb = b->state().tokens(layer);
            const ViewTable t = view.table();
            QCOMPARE(t.rows.size(), qsizetype(std::max(ta.size(), tb.size())));
            const QVariantList same = column(t, "same");
            int first = -1;
            for (size_t r = 0; r < size_t(t.rows.size()); ++r) {
                const bool expected = r < ta.size() && r < tb.size() && ta[r] == tb[r];
                QCOMPARE(same[qsizetype(r)].toBool(), expected);
                if (!expected && first < 0) first = int(r);
            }
            QCOMPARE(first, 3);  // the rows before the delete are the same
            const QVariantList ids = column(t, "fork_id");
            for (size_t r = 0; r < tb.size(); ++r)
                QCOMPARE(ids[qsizetype(r)].toLongLong(),
                         qlonglong(b->state().layer_map(layer).pos2ledger[r]));
            const QString summary = view.findChild<QLabel*>("forkSummary")->text();
            QVERIFY2(summary.contains(QString("the first at row 3")), qPrintable(summary));
            QVERIFY(summary.contains(QString::fromStdString(hash_hex(b->state_hash()))));
        }
    }

    // In the window: Edit ▸ Fork at tick fills the dock from the fork's controller, and the dock
    // follows the fork as it steps.
    void the_window_shows_its_fork_in_the_dock() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        w.setBackend("cpu");
        w.setPrompt(kPrompt);
        w.openModel("synthetic:tiny");
        QVERIFY(test::wait_idle(c));
        c.step(4);
        QVERIFY(test::wait_idle(c));
        w.forkAt(2);
        QVERIFY(test::wait_idle(c));
        SessionController* f = w.forkController();
        QTRY_VERIFY(f->lastFrame() != nullptr);
        QVERIFY(test::wait_idle(*f));
        f->step(3);
        QVERIFY(test::wait_idle(*f));
        QCOMPARE(f->lastFrame()->tick, int64_t(5));
        const FrameView* dock = w.docks().view("fork");
        QTRY_VERIFY(dock->findChild<QLabel*>("forkSummary")->text().contains("Fork: tick 5"));
        const ViewTable t = dock->table();
        const FramePtr fork = f->lastFrame();
        const LayerFrame& l0 = fork->layers[0];
        QCOMPARE(t.rows.size(), qsizetype(std::max(l0.rows(), c.lastFrame()->layers[0].rows())));
        const QVariantList ids = column(t, "fork_id");
        for (int r = 0; r < l0.rows(); ++r)
            QCOMPARE(ids[r].toLongLong(), qlonglong(l0.pos2ledger[size_t(r)]));
        // Greedy from the same point: the first three rows after tick 2 are the same tokens.
        QVERIFY(column(t, "same").first().toBool());
    }
};

QTEST_MAIN(TestForkView)
#include "test_fork_view.moc"
