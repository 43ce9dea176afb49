// Token across layers: the record view's per-layer story equals what the StateManager holds —
// the row found by scanning the layer's pos2ledger, the ledger entry's status and removal —
// for a session whose selective policy keeps different records in different layers; a layer
// whose ledger and cache disagree is drawn red; clicking a live layer selects its row.
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QtTest>

#include "app/gui/view_controls.h"
#include "core/model/model_loader.h"
#include "core/session/session.h"
#include "frame_builder.h"
#include "widgets/record_view.h"
#include "widgets/view_colors.h"

using namespace kvw;

namespace {

// h2o keeps, per layer, the rows its attention weighs most: the layers end up holding different
// records, and the removed ones carry a score.
Session& h2o_session() {
    static Session* session = [] {
        SessionOptions o;
        o.model = "synthetic:tiny";
        o.capacity = 128;
        o.proposer = "h2o";
        o.policy.budget = {2, 6, 4};
        o.sampling.seed = 5;
        auto* s = new Session(o, load_model("synthetic:tiny"));
        s->start("in the beginning god created the heaven and the earth and the darkness");
        for (int i = 0; i < 12; ++i) s->step();
        return s;
    }();
    return *session;
}

// The row of layer `l` that holds `id`, by a plain scan of the StateManager's map; -1: none.
int row_holding(const StateManager& state, int l, int64_t id) {
    const std::vector<int64_t>& rows = state.layer_map(l).pos2ledger;
    for (size_t r = 0; r < rows.size(); ++r)
        if (rows[r] == id) return int(r);
    return -1;
}

QString cell(const QTableWidget* table, int row, int column) {
    return table->item(row, column)->text();
}

}  // namespace

class TestRecordView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    void story_matches_the_state_manager() {
        Session& s = h2o_session();
        const FramePtr frame = s.frame();
        const StateManager& state = s.state();
        const int layers = int(frame->layers.size());
        QVERIFY(layers > 1);

        // A record live in some layers and removed in others: the case the view exists for.
        int64_t mixed = -1;
        for (const LedgerEntry& e : state.ledger().entries()) {
            int live = 0, removed = 0;
            for (RowStatus st : e.status) {
                live += st == RowStatus::Live;
                removed += st == RowStatus::Removed;
            }
            if (live > 0 && removed > 0) {
                mixed = e.id;
                break;
            }
        }
        QVERIFY2(mixed >= 0, "h2o kept the same records in every layer");

        RecordView view;
        view.resize(700, 300);
        view.setFrame(frame);
        auto* spin = view.findChild<QSpinBox*>("record");
        auto* table = view.findChild<QTableWidget*>("layers");
        QVERIFY(spin && table);
        QCOMPARE(spin->maximum(), int(state.ledger().size()) - 1);

        // Selecting the record's row in a layer where it is live follows that record.
        const LedgerEntry& e = state.ledger().at(mixed);
        int live_layer = -1;
        for (int l = 0; l < layers && live_layer < 0; ++l)
            if (e.status[size_t(l)] == RowStatus::Live) live_layer = l;
        view.setSelection(live_layer, row_holding(state, live_layer, mixed));
        QCOMPARE(view.recordId(), mixed);
        QCOMPARE(table->rowCount(), layers);

        for (int l = 0; l < layers; ++l) {
            const int row = row_holding(state, l, mixed);
            const Removal& removal = e.removal[size_t(l)];
            QCOMPARE(cell(table, l, RecordView::Layer), QString::number(l));
            QCOMPARE(cell(table, l, RecordView::Row), row >= 0 ? QString::number(row) : "—");
            QCOMPARE(cell(table, l, RecordView::Status) == "live", row >= 0);
            if (row >= 0) {
                const int32_t phase = frame->layers[size_t(l)].rope_pos[size_t(row)];
                QCOMPARE(cell(table, l, RecordView::Rope), QString::number(phase));
                QCOMPARE(cell(table, l, RecordView::Brightness).toDouble(),
                         std::round(double(state.ledger().brightness(mixed, l)) * 10) / 10);
                QCOMPARE(cell(table, l, RecordView::LeftAt), "—");
            } else {
                QCOMPARE(cell(table, l, RecordView::Status), "removed");
                QCOMPARE(cell(table, l, RecordView::LeftAt), QString::number(removal.tick));
                QCOMPARE(cell(table, l, RecordView::Why),
                         QString(removal_reason_name(removal.cause.reason)));
                QVERIFY(removal.cause.score.has_value());
                QCOMPARE(cell(table, l, RecordView::Score),
                         QString::number(double(*removal.cause.score), 'g', 4));
            }
        }
        const QString header = view.findChild<QLabel*>("header")->text();
        QVERIFY2(header.startsWith(QString("#%1 ").arg(mixed)), qPrintable(header));
        int live_count = 0;
        for (RowStatus st : e.status) live_count += st == RowStatus::Live;
        QVERIFY2(header.contains(QString("live in %1 of %2 layers").arg(live_count).arg(layers)),
                 qPrintable(header));

        // A click on a live layer selects the record's row there; on a removed one, nothing.
        QSignalSpy rows(&view, &FrameView::rowSelected);
        for (int l = 0; l < layers; ++l) {
            const int row = row_holding(state, l, mixed);
            emit table->cellClicked(l, RecordView::Status);
            if (row < 0) {
                QCOMPARE(rows.count(), 0);
                continue;
            }
            QCOMPARE(rows.count(), 1);
            QCOMPARE(rows.takeFirst(), (QVariantList{l, row}));
        }
    }

    void controls_lists_what_set_takes() {
        // `controls record` describes the spin box a script drives with `set record record N`.
        RecordView view;
        view.setFrame(test::make_frame(2, 10));
        QCOMPARE(set_control(&view, "record", "7"), QString());
        QCOMPARE(describe_controls(&view), QStringList{"record: an integer in [0, 11] (now 7)"});
        QVERIFY(set_control(&view, "record", "12").contains("[0, 11]"));
    }

    void a_disagreement_is_drawn_red() {
        // Layer 1 of the hand-built frame holds record 5 while its ledger entry says removed.
        auto frame = test::make_frame(3, 12);
        std::vector<LedgerRecord> records(frame->ledger.begin(), frame->ledger.end());
        for (LedgerRecord& r : records)
            for (const LayerFrame& lf : frame->layers)
                r.status.push_back(std::find(lf.pos2ledger.begin(), lf.pos2ledger.end(), r.id) !=
                                           lf.pos2ledger.end()
                                       ? RowStatus::Live
                                       : RowStatus::NeverHeld);
        records[5].status[1] = RowStatus::Removed;
        frame->ledger = LedgerRecords(std::move(records), 16);
        RecordView view;
        view.setFrame(frame);
        view.findChild<QSpinBox*>("record")->setValue(5);
        auto* table = view.findChild<QTableWidget*>("layers");
        for (int l = 0; l < 3; ++l) {
            const QColor bg = table->item(l, RecordView::Status)->background().color();
            if (l == 1)
                QCOMPARE(bg, fail_color());
            else
                QVERIFY2(bg != fail_color(), qPrintable(QString("layer %1").arg(l)));
        }
        QCOMPARE(cell(table, 1, RecordView::Status), "removed");
        QCOMPARE(cell(table, 1, RecordView::Row), QString::number(5 - test::ledger_of(1, 0)));
    }
};

QTEST_MAIN(TestRecordView)
#include "test_record_view.moc"
