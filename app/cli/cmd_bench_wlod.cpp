// kvw bench wlod: regenerating after an edit, incrementally (from the earliest dirty row, the
// wLOD path of ARCHITECTURE §14) against a full recompute of every row, for an edit at 10 %,
// 50 % and 90 % of the context, next to the ideal ratio L / (L - p) of rows recomputed.
// Two edits: a token edit (replace_pair of two rows by two tokens, the length kept) and a
// collapse of the level-1 block there. After each incremental regeneration the cache is checked
// against a fresh full pass (the drift column), so the speed-up is for an exact result.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "bench_timing.h"
#include "commands.h"
#include "common_options.h"
#include "core/backend/backend_registry.h"
#include "core/engine/transformer.h"
#include "core/model/model_loader.h"
#include "core/state/state_manager.h"
#include "core/wlod/wlod_context.h"

namespace kvw::cli {
namespace {

using Clock = BenchClock;

float max_drift(const DriftReport& d) {
    float m = 0.0f;
    for (const LayerDrift& l : d.layers)
        for (size_t r = 0; r < l.k.size(); ++r) m = std::max({m, l.k[r], l.v[r]});
    return m;
}

struct Row {
    std::string edit;
    int percent = 0;
    int pos = 0;
    int rows = 0;
    std::vector<double> incremental_ms, full_ms;          // wall clock
    std::vector<double> incremental_cpu_ms, full_cpu_ms;  // processor time, every thread
    float drift = 0.0f;
};

int run_bench_wlod(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    const std::string model_name = args.get("model");
    const int reps = int(args.get_count("reps", 1000));
    const int k = int(args.get_count("wlod-k", 4096));
    if (reps < 1) throw UsageError("--reps must be >= 1");
    if (k < 2) throw UsageError("--wlod-k must be >= 2");

    const std::shared_ptr<const Model> model = load_model(model_name);
    const int context = model->config.max_context;
    const int tokens = args.has("tokens") ? int(args.get_count("tokens", INT32_MAX)) : context;
    if (tokens < 4 * k || tokens > context)
        throw UsageError("--tokens must lie in [4 K, the model's context " +
                         std::to_string(context) + "]");
    const auto backend = create_backend(args.get("backend"));
    const Transformer engine(model, *backend);
    const int vocab = model->config.vocab_size;
    std::vector<int32_t> prompt(static_cast<size_t>(tokens));
    for (int i = 0; i < tokens; ++i)  // spread over the vocabulary, fixed
        prompt[size_t(i)] = 3 + int32_t((uint64_t(i) * 7919u) % uint64_t(vocab - 3));

    StateOptions so{tokens, RopePolicy::FinalIndex, false, CacheLayout::Contiguous};
    so.wlod_k = k;
    StateManager s(engine, so);
    const auto start = Clock::now();
    s.append(prompt, EntryKind::Prompt, 0);
    spdlog::info("[bench] prefill of {} tokens: {:.1f} s", tokens, ms_since(start) / 1000);
    WlodOptions wo;
    wo.full_recompute_below = 0.0;  // always incremental: the fallback is what this measures
    wo.verify = false;
    WlodContext ctx(s, wo);
    ctx.regenerate(s);

    std::printf("kvw bench wlod: %s, %d tokens (context %d), K = %d, %s backend, median of %d\n",
                model_name.c_str(), tokens, context, k, std::string(backend->name()).c_str(), reps);
    std::vector<Row> rows;
    int64_t tick = 1;
    for (const char* edit : {"replace_pair", "collapse L1"}) {
        for (int percent : {10, 50, 90}) {
            Row row{edit, percent, 0, 0, {}, {}, {}, {}, 0.0f};
            for (int rep = 0; rep < reps; ++rep) {
                const int target = tokens * percent / 100;
                if (std::string(edit) == "replace_pair") {
                    const int32_t a = 3 + int32_t((target * 31 + rep) % (vocab - 3));
                    const int32_t pair[2] = {a, int32_t(3 + (a + 17) % (vocab - 3))};
                    row.pos = target;
                    s.replace_pair({}, target, target + 1, pair, tick++);
                } else {
                    row.pos = target / k * k;  // no gists before it: rows are tokens
                    s.collapse({}, row.pos, 1, tick++);
                }
                row.rows = s.rows(0);
                auto t0 = Clock::now();
                double c0 = process_cpu_ms();
                ctx.regenerate(s);
                row.incremental_ms.push_back(ms_since(t0));
                row.incremental_cpu_ms.push_back(process_cpu_ms() - c0);
                row.drift = std::max(row.drift, max_drift(s.measure_drift()));
                t0 = Clock::now();
                c0 = process_cpu_ms();
                s.rebuild_from_mirror();
                row.full_ms.push_back(ms_since(t0));
                row.full_cpu_ms.push_back(process_cpu_ms() - c0);
                // Long contexts take minutes per row: say where the run is.
                spdlog::info(
                    "[bench] {} at {}%: incremental {:.0f} ms ({:.0f} ms CPU), full {:.0f} ms "
                    "({:.0f} ms CPU)",
                    edit, percent, row.incremental_ms.back(), row.incremental_cpu_ms.back(),
                    row.full_ms.back(), row.full_cpu_ms.back());
                if (std::string(edit) != "replace_pair") {  // back to tokens for the next rep
                    s.expand({}, row.pos, tick++);
                    ctx.regenerate(s);
                }
            }
            rows.push_back(std::move(row));
        }
    }
    // Wall clock first; then processor time, which on a shared machine says what the step cost
    // rather than how long it waited for a core.
    std::printf("  %-13s %5s %6s %6s %15s %9s %9s %9s %9s %9s %9s %11s\n", "edit", "at", "row p",
                "rows L", "incremental ms", "full ms", "speed-up", "inc CPU", "full CPU",
                "CPU ratio", "L/(L-p)", "max drift");
    for (const Row& r : rows) {
        const double inc = median(r.incremental_ms), full = median(r.full_ms);
        const double inc_cpu = median(r.incremental_cpu_ms), full_cpu = median(r.full_cpu_ms);
        std::printf("  %-13s %4d%% %6d %6d %15.1f %9.1f %8.2fx %9.1f %9.1f %8.2fx %8.2fx %11.2e\n",
                    r.edit.c_str(), r.percent, r.pos, r.rows, inc, full, full / inc, inc_cpu,
                    full_cpu, full_cpu / inc_cpu, double(r.rows) / double(r.rows - r.pos),
                    double(r.drift));
    }
    return 0;
}

}  // namespace

CommandSpec bench_wlod_command() {
    return {"bench wlod",
            "",
            "wLOD regeneration after an edit: incremental against a full recompute",
            {model_option(),
             {"tokens", "N", "", "tokens in the context (default the model's context length)"},
             {"wlod-k", "K", "32", "tokens per wLOD block"},
             {"reps", "N", "3", "edits timed per position"},
             backend_option("auto")},
            run_bench_wlod};
}

}  // namespace kvw::cli
