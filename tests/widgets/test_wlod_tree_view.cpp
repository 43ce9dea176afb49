// wLOD tree view: an icicle of the session's tree (L2 top, L1, L0 blocks), coloured by how each
// node is in the working context, the last change's invalidation drawn over it, and a click
// selecting all the node's rows. Set KVW_SHOTS=DIR to keep the rendered PNG for a look.
#include <QSignalSpy>
#include <QtTest>

#include "core/model/model_loader.h"
#include "core/session/session.h"
#include "frame_builder.h"
#include "widgets/wlod_tree_view.h"

using namespace kvw;

namespace {

FramePtr wlod_frame() {
    static FramePtr frame = [] {
        SessionOptions o;
        o.model = "synthetic:tiny";
        o.capacity = 256;
        o.proposer = "focus";
        o.sampling.seed = 3;
        o.wlod_k = 4;
        o.wlod_max = 24;
        Session s(o, load_model("synthetic:tiny"));
        s.start("in the beginning god created the heaven and the earth");
        for (int i = 0; i < 70; ++i) s.step();
        return s.frame();
    }();
    return frame;
}

// A point inside a node's cell, horizontally centred and near its top edge, clear of the row
// number a gist cell shows (the layout nodeRect uses).
QPoint centre_of(const WlodTreeView& view, const WlodNode& n, int64_t leaves) {
    const double x0 = 6.0 + 28.0, w = view.width() - x0 - 6.0;
    const double band = (view.height() - 18.0 - 12.0) / 3.0;
    const double scale = w / double(leaves);
    return QPoint(int(x0 + scale * (double(n.first_leaf + n.end_leaf) / 2.0)),
                  int(18.0 + 6.0 + band * (2 - n.level) + 5.0));
}

}  // namespace

class TestWlodTreeView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::use_workbench_look(); }

    void draws_the_tree_and_selects_rows() {
        const FramePtr frame = wlod_frame();
        QVERIFY(!frame->wlod.empty());
        const WlodLayerFrame& wf = frame->wlod[0];
        WlodTreeView view;
        view.resize(900, 220);
        view.setFrame(frame);
        const QImage img = view.grab().toImage();
        if (qEnvironmentVariableIsSet("KVW_SHOTS"))
            img.save(qEnvironmentVariable("KVW_SHOTS") + "/wlod_tree.png");
        const int64_t leaves = wf.levels[0].back().end_leaf;

        // A gist node is orange, a covered block grey, a token block blue (away from hatching:
        // the last change was this tick's append, at the end).
        int gists = 0, tokens = 0;
        for (int level = 0; level < 3; ++level)
            for (const WlodNode& n : wf.levels[level]) {
                if (!n.complete || n.end_leaf > wf.last.temporal_from) continue;
                const QColor c = img.pixelColor(centre_of(view, n, leaves));
                if (n.how == InContext::AsGist) {
                    ++gists;
                    QVERIFY2(c.red() > 200 && c.blue() < 100, qPrintable(c.name()));
                } else if (n.how == InContext::AsTokens) {
                    ++tokens;
                    QVERIFY2(c.blue() > c.red() + 40, qPrintable(c.name()));
                }
            }
        QVERIFY(gists > 1);
        QVERIFY(tokens > 0);

        // A click selects all the node's rows: a gist its one row, a block of tokens its K rows.
        QSignalSpy spy(&view, &FrameView::rowsSelected);
        const auto click = [&](const WlodNode& n) {
            QVERIFY(qAbs(view.nodeCell(n.level, n.index).center().x() -
                         centre_of(view, n, leaves).x()) <= 1.0);
            QTest::mouseClick(&view, Qt::LeftButton, {}, centre_of(view, n, leaves));
            QCOMPARE(spy.count(), 1);
            const QList<QVariant> args = spy.takeFirst();
            QCOMPARE(args.at(0).toInt(), 0);
            QCOMPARE(args.at(1).toInt(), n.first_row);
            QCOMPARE(args.at(2).toInt(), n.rows);
        };
        const WlodNode* gist = nullptr;
        const WlodNode* tokens_block = nullptr;
        for (int level = 0; level < 3; ++level)
            for (const WlodNode& n : wf.levels[level]) {
                if (n.how == InContext::AsGist && !gist) gist = &n;
                if (n.how == InContext::AsTokens && n.complete && !tokens_block) tokens_block = &n;
            }
        QVERIFY(gist && tokens_block);
        click(*gist);
        QCOMPARE(gist->rows, 1);
        click(*tokens_block);
        QCOMPARE(tokens_block->rows, 4);

        // The selected span frames every node whose rows it meets, in the highlight colour.
        view.setSelection(0, tokens_block->first_row, tokens_block->rows);
        const QImage selected = view.grab().toImage();
        const QRectF cell = view.nodeCell(0, tokens_block->index);
        QCOMPARE(selected.pixelColor(QPoint(int(cell.left() + 2), int(cell.center().y()))),
                 view.palette().highlight().color());
    }

    void says_when_wlod_is_off() {
        WlodTreeView view;
        view.resize(400, 150);
        auto frame = std::make_shared<Frame>();
        view.setFrame(frame);
        const QImage img = view.grab().toImage();
        QVERIFY(!img.isNull());
    }
};

QTEST_MAIN(TestWlodTreeView)
#include "test_wlod_tree_view.moc"
