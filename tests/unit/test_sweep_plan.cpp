// A sweep's grid, plan, shard files and merged tables (core/sweep, docs/ARCHITECTURE.md §12,
// "Sweeps"): the grid is the product of its axes in a fixed order; a cell that cannot run is
// refused by its index; the merge reads cells in plan order, so the order shards finished in
// changes no byte; a temporary shard file (a task killed before its rename) is never read; the
// perplexity, its difference to the full cache and the bootstrap interval are the figures
// worked out here by hand.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

#include "core/sweep/bootstrap.h"
#include "core/sweep/plan_dir.h"
#include "core/sweep/shard_file.h"
#include "core/sweep/sweep_error.h"
#include "core/sweep/sweep_tables.h"

using namespace kvw;

namespace {

// 2 models x 2 texts x (full + h2o at B 2, 6 + random at B 2, 6) = 20 cells.
SweepPlan small_plan(int cells_per_shard) {
    SweepAxes axes;
    axes.policies = {"full", "h2o", "random"};
    axes.sinks = {2};
    axes.budgets = {2, 6};
    axes.windows = {4};
    axes.k_types = {KvType::F32};
    axes.v_types = {KvType::F32};
    axes.layouts = {CacheLayout::Contiguous};
    axes.ropes = {RopePolicy::Original};
    SweepPlan plan;
    plan.program = "kvw test";
    plan.ctx = 16;
    plan.cells_per_shard = cells_per_shard;
    plan.models = {{"m0.gguf", "00000000000000aa", 64}, {"m1.gguf", "00000000000000bb", 64}};
    plan.texts = {"t0.txt", "t1.txt"};
    plan.cells = grid_cells(2, 2, grid_configs(axes));
    return plan;
}

// A made-up result per cell: NLL and tokens that differ per cell, ids kept per layer.
CellResult result_of(const SweepCell& cell) {
    CellResult r;
    r.index = cell.index;
    r.scored = 10 + cell.text * 5;
    r.nll = 3.0 * double(r.scored) + 0.01 * double(cell.index) + 0.125 * cell.text;
    if (!cell.config.full()) r.kept = {{0, 1, int64_t(2 + cell.config.budget.budget)}, {0, 1, 5}};
    r.seconds = 0.5 * double(cell.index);  // differs per run in life; never in a table
    return r;
}

std::vector<CellResult> shard_results(const SweepPlan& plan, int shard) {
    std::vector<CellResult> out;
    const auto [first, last] = plan.shard_cells(shard);
    for (int64_t i = first; i < last; ++i) out.push_back(result_of(plan.cells[size_t(i)]));
    return out;
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const SweepError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

class TestSweepPlan : public QObject {
    Q_OBJECT
private slots:
    void the_grid_is_the_product_in_order() {
        const SweepPlan plan = small_plan(3);
        QCOMPARE(int(plan.cells.size()), 2 * 2 * (1 + 2 + 2));
        for (size_t i = 0; i < plan.cells.size(); ++i) QCOMPARE(plan.cells[i].index, int64_t(i));
        // Model-major, then text, then configuration: cell 5 is model 0, text 1, the full cache.
        QCOMPARE(plan.cells[5].model, 0);
        QCOMPARE(plan.cells[5].text, 1);
        QVERIFY(plan.cells[5].config.full());
        QCOMPARE(plan.cells[7].config.policy, std::string("h2o"));
        QCOMPARE(plan.cells[7].config.budget.budget, 6);
        QCOMPARE(plan.cells[10].model, 1);
        // 20 cells by 3: 7 shards, the last with 2.
        QCOMPARE(plan.shards(), 7);
        QVERIFY((plan.shard_cells(6) == std::pair<int64_t, int64_t>{18, 20}));
    }

    void a_cell_that_cannot_run_is_refused_by_its_index() {
        SweepPlan plan = small_plan(3);
        check_cells(plan);
        plan.cells[13].config.policy = "h20";
        QString e = QString::fromStdString(error_of([&] { check_cells(plan); }));
        QVERIFY2(e.contains("cell 13 (model m1.gguf, text t0.txt, h20 S 2 B 2 W 4") &&
                     e.contains("unknown policy 'h20'"),
                 qPrintable(e));
        plan = small_plan(3);
        plan.cells[2].config.budget.budget = 11;  // 2 + 11 + 4 = 17 rows > a chunk of 16
        e = QString::fromStdString(error_of([&] { check_cells(plan); }));
        QVERIFY2(e.contains("cell 2 ") && e.contains("S + B + W = 17"), qPrintable(e));
        plan = small_plan(3);
        plan.models[1].max_context = 8;
        e = QString::fromStdString(error_of([&] { check_cells(plan); }));
        QVERIFY2(
            e.startsWith("cell 10 ") && e.contains("--ctx 16 exceeds the model's context of 8"),
            qPrintable(e));
        plan = small_plan(3);
        plan.cells[4].config.budget.window = 0;
        e = QString::fromStdString(error_of([&] { check_cells(plan); }));
        QVERIFY2(e.startsWith("cell 4 ") && e.contains("window must be >= 1"), qPrintable(e));
    }

    void the_plan_reads_back_as_written() {
        SweepPlan plan = small_plan(4);
        plan.cells[3].config.k_type = KvType::Int8;
        plan.cells[3].config.layout = CacheLayout::Ring;
        const SweepPlan back = plan_from_json(plan_json(plan), "plan.json");
        QVERIFY(back.cells == plan.cells);
        QVERIFY(back.models == plan.models);
        QCOMPARE(back.texts, plan.texts);
        QCOMPARE(back.ctx, 16);
        QCOMPARE(plan_id(back), plan_id(plan));
        plan.cells[3].config.budget.budget = 7;
        QVERIFY(plan_id(back) != plan_id(plan));
        std::string bad = plan_json(back);
        bad.replace(bad.find("\"int8\""), 6, "\"int9\"");
        const std::string e = error_of([&] { plan_from_json(bad, "p/plan.json"); });
        QVERIFY2(e.find("p/plan.json: cell 3: k_type 'int9'") == 0, e.c_str());
    }

    void the_merge_does_not_depend_on_the_order_shards_finished() {
        const SweepPlan plan = small_plan(3);
        QTemporaryDir a, b;
        for (int s : {6, 2, 0, 5, 1, 4, 3})
            write_shard(a.path().toStdString(), plan, s, shard_results(plan, s));
        for (int s = 0; s < plan.shards(); ++s)
            write_shard(b.path().toStdString(), plan, s, shard_results(plan, s));
        const std::vector<CellResult> from_a = read_all_cells(a.path().toStdString(), plan);
        QVERIFY(from_a == read_all_cells(b.path().toStdString(), plan));
        QCOMPARE(perplexity_table(plan, from_a),
                 perplexity_table(plan, read_all_cells(b.path().toStdString(), plan)));
        // The figures, by hand: model 0's h2o at B 2 is cells 1 (text 0) and 6 (text 1).
        const CellResult c1 = result_of(plan.cells[1]), c6 = result_of(plan.cells[6]);
        const CellResult f0 = result_of(plan.cells[0]), f5 = result_of(plan.cells[5]);
        const double ppl = std::exp((c1.nll + c6.nll) / double(c1.scored + c6.scored));
        const double full = std::exp((f0.nll + f5.nll) / double(f0.scored + f5.scored));
        char expected[200];
        std::snprintf(expected, sizeof expected,
                      "m0.gguf,h2o,2,2,4,8,f32,f32,contiguous,original,16,2,25,%.6f,%.6f,%.6f,",
                      (c1.nll + c6.nll) / 25.0, ppl, ppl - full);
        const std::string table = perplexity_table(plan, from_a);
        QVERIFY2(table.find(std::string("\n") + expected) != std::string::npos, table.c_str());
        QVERIFY(table.starts_with(std::string(kSweepTableHeader) + "\n"));
        QVERIFY(table.find("\nm1.gguf,full,,,,,f32,f32,,original,16,2,25,") != std::string::npos);
    }

    void a_shard_killed_before_its_rename_is_never_read() {
        const SweepPlan plan = small_plan(3);
        QTemporaryDir d;
        const std::filesystem::path dir = d.path().toStdString();
        for (int s = 0; s < plan.shards(); ++s)
            if (s != 4) write_shard(dir, plan, s, shard_results(plan, s));
        // What ReplacingFile leaves when its process is killed: the temporary name, half the
        // bytes.
        const std::filesystem::path tmp =
            shard_path(dir, 4).parent_path() / ".shard-00004.json.tmp-4242";
        std::ofstream(tmp) << "{\"format\":\"kvw-sweep-shard\",\"plan\":\"";
        QVERIFY(missing_shards(dir, plan) == std::vector<int>{4});
        QVERIFY(!read_shard(dir, plan, 4).has_value());
        const std::string e = error_of([&] { read_all_cells(dir, plan); });
        QVERIFY2(e.find("1 of 7 shards have no results yet (4)") != std::string::npos, e.c_str());
        // A complete file of another plan under the shard's name is refused, not merged.
        SweepPlan other = plan;
        other.ctx = 32;
        write_shard(dir, other, 4, shard_results(other, 4));
        const std::string e2 = error_of([&] { read_all_cells(dir, plan); });
        QVERIFY2(e2.find("shard-00004.json: the results of another plan") != std::string::npos,
                 e2.c_str());
    }

    void the_bootstrap_interval_of_two_texts_spans_their_extremes() {
        // Two texts: a resample is {a, a}, {a, b} or {b, b}, the first and last each a quarter
        // of 1,000 draws, so the 25th smallest difference is {a, a}'s and the 975th {b, b}'s.
        const TextScore pa{20.0, 10}, pb{45.0, 15}, fa{19.0, 10}, fb{40.0, 15};
        const std::vector<TextScore> policy{pa, pb}, full{fa, fb};
        const double d_aa = std::exp(2.0) - std::exp(1.9);
        const double d_bb = std::exp(3.0) - std::exp(40.0 / 15.0);
        const Interval ci = bootstrap_difference(policy, full);
        QVERIFY(std::abs(ci.low - std::min(d_aa, d_bb)) < 1e-12);
        QVERIFY(std::abs(ci.high - std::max(d_aa, d_bb)) < 1e-12);
        const double pooled = pooled_perplexity(policy) - pooled_perplexity(full);
        QVERIFY(ci.low < pooled && pooled < ci.high);
        // Texts that all differ alike give no spread.
        const Interval same = bootstrap_difference(std::vector<TextScore>{pa, pa, pa},
                                                   std::vector<TextScore>{fa, fa, fa});
        QCOMPARE(same.low, d_aa);
        QCOMPARE(same.high, d_aa);
    }

    void the_overlap_table_counts_the_rows_both_policies_keep() {
        SweepPlan plan = small_plan(20);
        std::vector<CellResult> cells;
        for (const SweepCell& c : plan.cells) cells.push_back(result_of(c));
        // Model 0, text 0, B 2: h2o keeps {0,1,4} and {0,1,5}; random keeps {0,1,9} and {0,1,5}.
        cells[3].kept = {{0, 1, 9}, {0, 1, 5}};
        const std::string table = overlap_table(plan, cells);
        // Text 0: layer 0 both 2 of either 4 (0.5), layer 1 all 3 (1.0); text 1 kept alike
        // (1.0, 1.0): the mean over texts and layers is 0.875, both 2.75.
        QVERIFY2(table.find("\nm0.gguf,h2o,random,2,2,4,8,f32,f32,contiguous,original,2,3.0000,"
                            "3.0000,2.7500,0.875000\n") != std::string::npos,
                 table.c_str());
        QVERIFY(table.find("\nm1.gguf,h2o,random,2,6,4,12,") != std::string::npos);
        QVERIFY(table.find(",full,") == std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestSweepPlan)
#include "test_sweep_plan.moc"
