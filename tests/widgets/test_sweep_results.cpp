// File ▸ Open sweep results (issue 31 item 4): a sweep's folder shows a row per cell of its plan
// with the perplexity of the cells whose shard is done (exp of the shard's NLL over its tokens,
// worked out here) and "—" for the others, the merged table as the plot; double-clicking a row
// replaces the window's session with that cell at the start of its text: the plan's model, the
// cell's policy, budgets, storage types and RoPE policy, a chunk's capacity, and the first
// chunk's prompt (its ctx / 2 + 1 tokens) prefilled. A folder without a plan is an error in the
// status line and opens nothing.
#include <qcustomplot.h>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

#include "core/io/replacing_file.h"
#include "core/model/model_loader.h"
#include "core/sweep/plan_dir.h"
#include "core/sweep/shard_file.h"
#include "core/sweep/sweep_tables.h"
#include "widgets/sweep_results_view.h"
#include "window_test_support.h"

using namespace kvw;

namespace {

constexpr const char* kText =
    "The cache remembers what the model was told, and the sweep asks "
    "how much of it a policy may forget.";
constexpr int kCtx = 16;

// synthetic:tiny over one text: full (f32 and V int8), h2o S 2 B 2 W 4 with V f32 / int8 and
// RoPE original / reindex: 6 cells in 3 shards of 2.
SweepPlan plan_for(const std::string& text_path) {
    SweepAxes axes;
    axes.policies = {"full", "h2o"};
    axes.sinks = {2};
    axes.budgets = {2};
    axes.windows = {4};
    axes.k_types = {KvType::F32};
    axes.v_types = {KvType::F32, KvType::Int8};
    axes.layouts = {CacheLayout::Contiguous};
    axes.ropes = {RopePolicy::Original, RopePolicy::Reindex};
    SweepPlan plan;
    plan.program = "kvw test";
    plan.ctx = kCtx;
    plan.cells_per_shard = 2;
    plan.models = {{"synthetic:tiny", "0", load_model("synthetic:tiny")->config.max_context}};
    plan.texts = {text_path};
    plan.cells = grid_cells(1, 1, grid_configs(axes));
    return plan;
}

CellResult made_up(const SweepCell& cell) {
    return {cell.index, 20.0 + double(cell.index), 8, {}, 0.0};
}

}  // namespace

class TestSweepResults : public QObject {
    Q_OBJECT
private slots:
    void a_double_clicked_cell_opens_as_a_session_at_its_start() {
        QTemporaryDir dir;
        const std::string text_path = (dir.path() + "/text.txt").toStdString();
        std::ofstream(text_path) << kText;
        const SweepPlan plan = plan_for(text_path);
        QCOMPARE(int(plan.cells.size()), 6);
        const std::filesystem::path folder = (dir.path() + "/sweep").toStdString();
        plan_dir::write_plan(folder, plan);
        for (int shard : {0, 2}) {  // shard 1 (cells 2 and 3) not done yet
            std::vector<CellResult> results;
            const auto [first, last] = plan.shard_cells(shard);
            for (int64_t i = first; i < last; ++i)
                results.push_back(made_up(plan.cells[size_t(i)]));
            write_shard(folder, plan, shard, results);
        }

        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        SweepResultsView* view = w.openSweep(QString::fromStdString(folder.string()));
        QVERIFY(view);
        QTableWidget* table = view->table();
        QCOMPARE(table->rowCount(), 6);
        // Cell 5: h2o, V int8, RoPE reindex; NLL 25 over 8 tokens.
        QCOMPARE(table->item(5, 3)->text(), QString("h2o"));
        QCOMPARE(table->item(5, 8)->text(), QString("int8"));
        QCOMPARE(table->item(5, 10)->text(), QString("reindex"));
        QCOMPARE(table->item(5, 12)->text(), QString::number(std::exp(25.0 / 8.0), 'f', 4));
        QCOMPARE(table->item(2, 12)->text(), QString("—"));
        QVERIFY(!view->plot()->isVisibleTo(view));  // nothing merged yet

        // Double-click cell 5.
        QVERIFY(QTest::qWaitForWindowExposed(view));
        const QRect cell = table->visualItemRect(table->item(5, 0));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QVERIFY(test::wait_idle(c));
        const FramePtr f = c.lastFrame();
        QVERIFY2(f, qPrintable(test::status_message(w) + " | " + test::log_text(w)));
        QCOMPARE(f->tick, int64_t(0));
        QCOMPARE(f->proposer, std::string("h2o"));
        QVERIFY((f->policy.budget == PolicyBudget{2, 2, 4}));
        QCOMPARE(f->k_type, std::string("f32"));
        QCOMPARE(f->v_type, std::string("int8"));
        QVERIFY(f->rope_policy == RopePolicy::Reindex);
        QVERIFY(f->layout == CacheLayout::Contiguous);
        QCOMPARE(f->capacity, kCtx);
        // The first chunk's prompt: the text's first ctx / 2 + 1 tokens, BOS first.
        const std::vector<int32_t> tokens =
            load_model("synthetic:tiny")->tokenizer.encode(kText, true);
        QCOMPARE(int(f->ledger.size()), kCtx / 2 + 1);
        for (int i = 0; i <= kCtx / 2; ++i)
            QCOMPARE(f->ledger[size_t(i)].token_id, tokens[size_t(i)]);

        // Merged, the plot is shown.
        std::vector<CellResult> all;
        for (const SweepCell& cell : plan.cells) all.push_back(made_up(cell));
        write_file_atomically(plan_dir::table(folder), perplexity_table(plan, all));
        SweepResultsView* merged = w.openSweep(QString::fromStdString(folder.string()));
        QVERIFY(merged);
        QVERIFY(merged->plot()->isVisibleTo(merged));
        QVERIFY(merged->plot()->graphCount() > 0);
        // The plan's two full caches (V f32 and V int8) are two lines the legend tells apart.
        QStringList full;
        for (int g = 0; g < merged->plot()->graphCount(); ++g)
            if (merged->plot()->graph(g)->name().startsWith("full cache"))
                full << merged->plot()->graph(g)->name();
        QCOMPARE(full.size(), 2);
        QVERIFY2(full[0] != full[1], qPrintable(full.join(" | ")));
    }

    void a_folder_without_a_plan_is_an_error() {
        QTemporaryDir dir;
        SessionController c;
        MainWindow w(c, {true, QSize(1600, 1000)});
        QVERIFY(!w.openSweep(dir.path()));
        QVERIFY2(test::status_message(w).contains("is not a sweep folder"),
                 qPrintable(test::status_message(w)));
    }
};

QTEST_MAIN(TestSweepResults)
#include "test_sweep_results.moc"
