// wLOD driven from the window (ARCHITECTURE §14), on synthetic:tiny: the Session menu's
// "wLOD tree…" turns it on with K and W_max; the token strip's menu collapses a token's block
// and expands the gist again through the same path as the other edits, and offers only what
// the row allows; a refused edit or setting comes back as a typed error in the status bar and
// changes nothing; a click on a wLOD node selects all its rows in every view.
#include <QAction>
#include <QApplication>
#include <QSpinBox>
#include <QTimer>
#include <QtTest>

#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "app/gui/view_docks.h"
#include "app/gui/wlod_dialog.h"
#include "frame_builder.h"
#include "widgets/action_editor_view.h"
#include "widgets/layer_maps_view.h"
#include "widgets/token_strip_view.h"
#include "widgets/wlod_tree_view.h"
#include "window_test_support.h"

using namespace kvw;

namespace {

constexpr const char* kPrompt =
    "In the beginning God created the heaven and the earth and the earth was without form";
constexpr int kK = 4;

// The gist rows of layer 0 in the last frame.
int gist_rows(const SessionController& c) {
    const FramePtr f = c.lastFrame();
    int n = 0;
    for (int64_t id : f->layers[0].pos2ledger) n += f->ledger[size_t(id)].kind == EntryKind::Gist;
    return n;
}

bool all_invariants_pass(const SessionController& c) {
    return c.lastFrame()->all_invariants_pass();
}

}  // namespace

class TestWlodWindow : public QObject {
    Q_OBJECT

    // The window on synthetic:tiny with kPrompt, wLOD turned on through the Session menu's dialog.
    void started_with_wlod(SessionController& c, MainWindow& w) {
        w.setBackend("cpu");
        w.setPrompt(kPrompt);
        w.openModel("synthetic:tiny");
        QVERIFY(test::wait_idle(c));
        QCOMPARE(c.lastFrame()->wlod_k, 0);
        // The dialog is modal: fill it in once it is up.
        bool seen = false;
        QTimer::singleShot(0, [&seen] {
            auto* dialog = qobject_cast<WlodDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            seen = dialog->k() == 0;  // it starts at what the session runs: off
            dialog->setK(kK);
            dialog->setWMax(0);
            dialog->accept();
        });
        test::named_action(w, "wlodSettings")->trigger();
        QVERIFY(seen);
        QVERIFY(test::wait_idle(c));
        const FramePtr f = c.lastFrame();
        QCOMPARE(f->wlod_k, kK);
        QCOMPARE(f->wlod.size(), size_t(f->model.n_layers));
        QVERIFY(f->layers[0].rows() >= 3 * kK);
        QVERIFY(all_invariants_pass(c));
    }

private slots:
    void initTestCase() {
        test::use_workbench_look();
        qRegisterMetaType<kvw::ActionList>();
    }

    void the_token_strip_collapses_and_expands() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        started_with_wlod(c, w);
        auto* strip = static_cast<TokenStripView*>(w.docks().view("tokens"));
        strip->setApplyNow(true);
        const int rows = c.lastFrame()->layers[0].rows();

        // Row 1 lies in the first block, which holds BOS in row 0: BOS is never collapsed, so
        // neither menu entry is offered there (issue 25 item 5).
        w.select(0, 1);
        QVERIFY(!strip->collapseL1Action()->isEnabled());
        QVERIFY(!strip->collapseL2Action()->isEnabled());

        // Row 5 lies in the second block (rows 4..7): its L1 collapse starts at row 4; the
        // prompt is shorter than a level-2 block (K² = 16 tokens) or holds only one, not a gist.
        w.select(0, kK + 1);
        QVERIFY(strip->collapseL1Action()->isEnabled());
        QVERIFY(!strip->expandAction()->isEnabled());
        strip->collapseL1Action()->trigger();
        QVERIFY(test::wait_idle(c));
        FramePtr f = c.lastFrame();
        QCOMPARE(f->layers[0].rows(), rows - (kK - 1));
        QCOMPARE(f->ledger[size_t(f->layers[0].pos2ledger[kK])].kind, EntryKind::Gist);
        QCOMPARE(gist_rows(c), 1);
        QVERIFY(all_invariants_pass(c));

        // On the gist row: expand, nothing to collapse at level 1 there.
        w.select(0, kK);
        QVERIFY(strip->expandAction()->isEnabled());
        QVERIFY(!strip->collapseL1Action()->isEnabled());
        // K cannot change under a gist: a typed error, and the session keeps K.
        w.setWlod(2 * kK, 0);
        QVERIFY(test::wait_idle(c));
        QTRY_VERIFY2(test::status_message(w).contains("expand the gists first"),
                     qPrintable(test::status_message(w)));
        QCOMPARE(c.lastFrame()->wlod_k, kK);

        strip->expandAction()->trigger();
        QVERIFY(test::wait_idle(c));
        f = c.lastFrame();
        QCOMPARE(f->layers[0].rows(), rows);
        QCOMPARE(gist_rows(c), 0);
        QVERIFY(all_invariants_pass(c));
    }

    void a_refused_wlod_edit_is_a_typed_error() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        started_with_wlod(c, w);
        const uint64_t hash = c.lastFrame()->state_hash;
        auto* editor = static_cast<ActionEditorView*>(w.docks().view("actions"));
        editor->setCurrentTab(ActionEditorView::JsonTab);
        editor->setJsonText(R"({"action":"collapse","pos":2,"level":1})");
        QVERIFY(editor->submit(true));
        QVERIFY(test::wait_idle(c));
        const QString message = test::status_message(w);
        QVERIFY2(message.contains("rejected") && message.contains("not at a multiple of 4"),
                 qPrintable(message));
        QCOMPARE(c.lastFrame()->state_hash, hash);
        editor->setJsonText(R"({"action":"expand","pos":3})");
        QVERIFY(editor->submit(true));
        QVERIFY(test::wait_idle(c));
        QVERIFY2(test::status_message(w).contains("holds a token, not a gist"),
                 qPrintable(test::status_message(w)));
        QCOMPARE(c.lastFrame()->state_hash, hash);
    }

    void a_wlod_node_selects_all_its_rows_everywhere() {
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        w.show();
        started_with_wlod(c, w);
        QVERIFY(w.showView("wlod"));
        auto* tree = static_cast<WlodTreeView*>(w.docks().view("wlod"));
        QTRY_VERIFY(tree->isVisible() && tree->width() > 100);
        const FramePtr f = c.lastFrame();
        const WlodLayerFrame& wf = f->wlod[0];
        const WlodNode& block = wf.levels[0][1];  // the second block of K token rows
        QVERIFY(block.complete && block.how == InContext::AsTokens);
        QCOMPARE(block.rows, kK);

        QTest::mouseClick(tree, Qt::LeftButton, {},
                          tree->nodeCell(0, block.index).center().toPoint());
        QCOMPARE(w.row(), block.first_row);
        QCOMPARE(w.rowCount(), kK);
        auto* strip = static_cast<TokenStripView*>(w.docks().view("tokens"));
        QCOMPARE(strip->firstRow(), block.first_row);
        QCOMPARE(strip->selectedSpan(), kK);
        auto* maps = static_cast<LayerMapsView*>(w.docks().view("maps"));
        QCOMPARE(maps->selectedRow(), block.first_row);
        QCOMPARE(maps->selectedCount(), kK);

        // A click on one token goes back to one row.
        w.select(0, 2);
        QCOMPARE(strip->selectedSpan(), 1);
        QCOMPARE(maps->selectedCount(), 1);
    }
};

QTEST_MAIN(TestWlodWindow)
#include "test_wlod_window.moc"
