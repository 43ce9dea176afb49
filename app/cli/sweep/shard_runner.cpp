#include "shard_runner.h"

#include <chrono>
#include <map>

#include <spdlog/spdlog.h>

#include "../cli_args.h"
#include "../policy_eval.h"
#include "core/model/model_loader.h"
#include "core/sweep/cell_session.h"
#include "core/sweep/sweep_error.h"
#include "sweep_grid_args.h"

namespace kvw::cli {

namespace {

using Clock = std::chrono::steady_clock;

// One cell through the cache its configuration describes (core/sweep/cell_session.h).
CellResult score_cell(const EvalText& text, const SweepPlan& plan, const SweepCell& cell) {
    CellResult r;
    r.index = cell.index;
    if (scored_without_session(cell.config)) {
        const PerplexityResult p = score_full_cache(text);
        r.nll = p.nll;
        r.scored = p.scored;
        return r;
    }
    const PolicyScore s = score_session(text, cell_session_options(plan, cell));
    r.nll = s.result.nll;
    r.scored = s.result.scored;
    if (cell.config.full()) return r;
    for (int l = 0; l < s.session->state().n_layers(); ++l) {
        std::vector<int64_t>& ids = r.kept.emplace_back();
        for (int64_t id : s.session->state().layer_map(l).pos2ledger)
            if (id >= 0) ids.push_back(id);
    }
    return r;
}

}  // namespace

void run_shard(const std::filesystem::path& dir, const SweepPlan& plan, int shard) {
    if (shard < 0 || shard >= plan.shards())
        throw UsageError("--shard " + std::to_string(shard) + ": the plan has shards 0 to " +
                         std::to_string(plan.shards() - 1));
    const auto [first, last] = plan.shard_cells(shard);
    spdlog::info("[sweep] shard {} of {}: cells {} to {}", shard, plan.shards(), first, last - 1);
    std::map<int, std::shared_ptr<const Model>> models;
    std::vector<CellResult> results;
    std::unique_ptr<EvalText> text;  // the last (model, text): consecutive cells share it
    for (int64_t i = first; i < last; ++i) {
        const SweepCell& cell = plan.cells[size_t(i)];
        if (!models.contains(cell.model)) {
            const PlanModel& m = plan.models[size_t(cell.model)];
            if (model_content_hash(m.spec) != m.hash)
                throw SweepError(plan.name(cell) +
                                 ": the model's bytes changed since the plan "
                                 "was written (xxh64 " +
                                 m.hash + ")");
            models[cell.model] = load_model(m.spec);
        }
        if (!text || text->model != models[cell.model] ||
            text->file != plan.texts[size_t(cell.text)])
            text = std::make_unique<EvalText>(eval_text(models[cell.model],
                                                        plan.texts[size_t(cell.text)], plan.ctx,
                                                        plan.backend, RopePolicy::Original));
        const Clock::time_point start = Clock::now();
        CellResult r = score_cell(*text, plan, cell);
        r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        spdlog::info("[sweep] {}: {} tokens, NLL sum {:.6f} ({:.2f} s)", plan.name(cell), r.scored,
                     r.nll, r.seconds);
        results.push_back(std::move(r));
    }
    write_shard(dir, plan, shard, results);
    spdlog::info("[sweep] shard {} done: {}", shard, shard_path(dir, shard).string());
}

}  // namespace kvw::cli
