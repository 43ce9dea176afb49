// Tick inspector: the last tick's list in application order with the number it had as given,
// each action's outcome (applied, rejected with its reasons, failed / undone / not reached on
// an abort) and the step timings.
#include <QIdentityProxyModel>
#include <QLabel>
#include <QTableWidget>
#include <QtTest>

#include "frame_builder.h"
#include "widgets/action_list_table.h"
#include "widgets/tick_inspector_view.h"

using namespace kvw;
using test::make_frame;

namespace {

// Applied order: delete 20 (given #1), replace 5-6 (#0), add 42 (#2).
std::shared_ptr<Frame> frame_with_actions() {
    auto f = make_frame(4, 40, 7);
    f->last_actions = {Action{DeleteAction{20}, {}},
                       Action{ReplacePairAction{5, 6, {301, 302}}, {0, 2}},
                       Action{AddAction{42}, {}}};
    f->last_given_index = {1, 0, 2};
    f->last_result.tick = 7;
    f->last_result.actions_applied = 3;
    f->timings = {1.25, 0.5, 0.25, 2.0, 4.0, 1.5};
    return f;
}

// Counts the cell texts the table asks its model for.
class CountingProxy : public QIdentityProxyModel {
public:
    using QIdentityProxyModel::QIdentityProxyModel;
    QVariant data(const QModelIndex& index, int role) const override {
        if (role == Qt::DisplayRole) ++display_calls;
        return QIdentityProxyModel::data(index, role);
    }
    mutable int display_calls = 0;
};

QStringList column(ActionListTable* t, int c) {
    QStringList out;
    for (int r = 0; r < t->rowCount(); ++r) out << t->text(r, c);
    return out;
}

}  // namespace

class TestTickInspectorView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    void lists_the_actions_in_application_order() {
        TickInspectorView view;
        view.setFrame(frame_with_actions());
        auto* table = view.findChild<ActionListTable*>("actions");
        QCOMPARE(column(table, ActionListTable::Index), (QStringList{"1", "0", "2"}));
        QCOMPARE(column(table, ActionListTable::Summary),
                 (QStringList{"delete", "replace_pair → [301, 302]", "add 42"}));
        QCOMPARE(column(table, ActionListTable::Rows), (QStringList{"20", "5–6", "end"}));
        QCOMPARE(column(table, ActionListTable::Layers), (QStringList{"all", "0, 2", "all"}));
        QCOMPARE(column(table, ActionListTable::Outcome),
                 (QStringList{"applied", "applied", "applied"}));
        QVERIFY(view.findChild<QLabel*>("result")->text().contains("applied 3 of 3"));
        const QString timings = view.findChild<QLabel*>("timings")->text();
        for (const char* part : {"sample 1.25", "brightness 0.50", "propose 0.25",
                                 "apply 2.00 (forward 1.50)", "total 4.00"})
            QVERIFY2(timings.contains(part), qPrintable(timings));
    }

    // A tick of 100,000 appends: the table asks for the texts of the rows it shows (and of the
    // rows its header samples for column widths), not of every row; the export has them all.
    void a_list_of_100k_actions_is_formatted_only_where_it_is_seen() {
        constexpr int kActions = 100000;
        auto f = make_frame(4, 40, 7);
        for (int i = 0; i < kActions; ++i)
            f->last_actions.push_back(Action{AddAction{i % 500}, {}});
        f->last_result.actions_applied = kActions;
        TickInspectorView view;
        view.resize(600, 400);
        view.show();
        auto* table = view.findChild<ActionListTable*>("actions");
        auto* counting = new CountingProxy(table);
        counting->setSourceModel(table->model());
        table->setModel(counting);
        view.setFrame(f);
        table->scrollTo(table->model()->index(70000, 0));
        QCoreApplication::processEvents();
        table->repaint();
        QCOMPARE(table->rowCount(), kActions);
        QVERIFY2(counting->display_calls > 0 && counting->display_calls < kActions / 20,
                 qPrintable(QString::number(counting->display_calls)));
        for (const int row : {0, 70000, kActions - 1}) {
            QCOMPARE(table->text(row, ActionListTable::Summary), QString("add %1").arg(row % 500));
            QCOMPARE(table->text(row, ActionListTable::Outcome), QString("applied"));
        }
        const ViewTable t = view.table();
        QCOMPARE(t.rows.size(), qsizetype(kActions));
        QCOMPARE(t.rows[70000][0].toInt(), 70000);
        QVERIFY2(t.rows[70000][2].toString().contains(QString::number(70000 % 500)),
                 qPrintable(t.rows[70000][2].toString()));
    }

    void a_rejection_names_the_faulty_action() {
        TickInspectorView view;
        auto f = frame_with_actions();
        f->last_result.rejected = true;
        f->last_result.actions_applied = 0;
        // Given action #0 is the replace, listed second.
        f->last_result.rejections = {
            {ValidationRule::PairOrder, 0, "original_pos2", "pos1 must be below pos2"}};
        view.setFrame(f);
        auto* table = view.findChild<ActionListTable*>("actions");
        const QStringList outcomes = column(table, ActionListTable::Outcome);
        QVERIFY2(
            outcomes[1].startsWith("rejected") && outcomes[1].contains("pos1 must be below pos2"),
            qPrintable(outcomes[1]));
        QVERIFY(!outcomes[0].startsWith("rejected"));
        QVERIFY(!outcomes[2].startsWith("rejected"));
        QVERIFY(table->model()
                    ->index(1, ActionListTable::Outcome)
                    .data(Qt::BackgroundRole)
                    .value<QColor>()
                    .red() > 200);
        QVERIFY(view.findChild<QLabel*>("result")->text().contains("REJECTED"));
    }

    void an_abort_marks_failed_undone_and_unreached() {
        TickInspectorView view;
        auto f = frame_with_actions();
        f->last_result.aborted = true;
        f->last_result.failed_action = 0;  // the replace, second in application order
        f->last_result.failed_primitive = "insert";
        f->last_result.abort_reason = "injected fault";
        f->last_result.rebuilt = true;
        f->last_result.actions_applied = 1;
        view.setFrame(f);
        const QStringList outcomes =
            column(view.findChild<ActionListTable*>("actions"), ActionListTable::Outcome);
        QCOMPARE(outcomes[0], QString("applied, then undone"));
        QCOMPARE(outcomes[1], QString("FAILED in insert: injected fault"));
        QCOMPARE(outcomes[2], QString("not reached"));
        const QString result = view.findChild<QLabel*>("result")->text();
        QVERIFY2(result.contains("ABORTED in insert") && result.contains("cache rebuilt"),
                 qPrintable(result));
    }

    void failed_appends_fail_every_add() {
        auto f = frame_with_actions();
        f->last_result.aborted = true;
        f->last_result.failed_action = -1;
        f->last_result.failed_primitive = "append";
        f->last_result.abort_reason = "capacity";
        const std::vector<ActionOutcome> outcomes = action_outcomes(*f);
        QCOMPARE(outcomes[0].text, QString("applied, then undone"));
        QCOMPARE(outcomes[1].text, QString("applied, then undone"));
        QVERIFY(!outcomes[2].ok);
    }
};

QTEST_MAIN(TestTickInspectorView)
#include "test_tick_inspector_view.moc"
