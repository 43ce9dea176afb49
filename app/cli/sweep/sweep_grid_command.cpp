#include "sweep_grid_command.h"

#include <cstdio>

#include "../common_options.h"
#include "../program_beside.h"
#include "../session_args.h"
#include "core/io/replacing_file.h"
#include "core/sweep/plan_dir.h"
#include "core/sweep/shard_file.h"
#include "core/sweep/sweep_error.h"
#include "core/sweep/sweep_tables.h"
#include "local_runner.h"
#include "shard_runner.h"
#include "slurm_runner.h"
#include "sweep_grid_args.h"
#include "sweep_status.h"

namespace kvw::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kModes[] = {"plan", "run", "status", "resume", "merge"};

// The tables from every shard's results; with --plot, the PNG drawn from the table.
int merge(const fs::path& dir, const CliArgs& args) {
    const SweepPlan plan = plan_dir::read_plan(dir);
    const std::vector<CellResult> cells = read_all_cells(dir, plan);
    write_file_atomically(plan_dir::table(dir), perplexity_table(plan, cells));
    write_file_atomically(plan_dir::overlap(dir), overlap_table(plan, cells));
    std::printf("wrote %s and %s (%zu cells)\n", plan_dir::table(dir).c_str(),
                plan_dir::overlap(dir).c_str(), cells.size());
    if (args.has("plot"))
        return exec_beside("kvw sweep --plot", "kvw-plot-sweep",
                           {plan_dir::table(dir).string(), args.get("plot")});
    return 0;
}

SlurmOptions slurm_options(const CliArgs& args) {
    SlurmOptions o;
    o.throttle = int(args.get_count("throttle", INT32_MAX));
    o.sbatch = args.get_all("sbatch");
    if (args.has("plot")) o.plot = fs::absolute(args.get("plot")).string();
    return o;
}

// Runs `shards` where the options say: on Slurm, or here in --jobs processes and then the
// merge. Returns the exit status.
int run_shards(const fs::path& dir, const SweepPlan& plan, const std::vector<int>& shards,
               const CliArgs& args, bool on_slurm) {
    if (on_slurm) {
        submit_to_slurm(dir, plan, shards, slurm_options(args));
        return 0;
    }
    const int jobs = int(args.get_count("jobs", 4096));
    if (jobs < 1) throw UsageError("--jobs must be at least 1");
    const std::vector<int> failed = run_local(dir, shards, jobs);
    if (!failed.empty()) {
        std::fputs(status_report(plan, shard_statuses(dir, plan)).c_str(), stderr);
        throw SweepError(std::to_string(failed.size()) + " shard(s) failed: see their logs in " +
                         plan_dir::logs(dir).string() + ", then kvw sweep --resume " +
                         dir.string());
    }
    return merge(dir, args);
}

void refuse(const CliArgs& args, std::initializer_list<const char*> names, const std::string& why) {
    for (const char* name : names)
        if (args.has(name)) throw UsageError(std::string("--") + name + " " + why);
}

}  // namespace

OptionTable sweep_grid_options() {
    return {
        {"k-type", "T,T", "f32",
         "K storage types of the grid (--plan): " + names_in(kKvTypeNames, ", ")},
        {"v-type", "T,T", "f32", "V storage types of the grid (--plan), as --k-type"},
        {"layout", "L,L", "contiguous",
         "cache layouts of the grid (--plan): " + names_in(kCacheLayoutNames, ", ")},
        {"plan", "DIR", "",
         "a grid: every --model x --file x configuration (--policy, --budgets, --sink, --window, "
         "--k-type, --v-type, --layout and --rope take comma lists; --file also a folder or a "
         "*.list file) written to DIR/plan.json and checked; then run with --jobs or --slurm"},
        {"cells-per-shard", "N", "8", "cells a shard (a process, an array task) scores"},
        {"jobs", "N", "1", "run the shards here, N processes at a time, then merge"},
        {"slurm", "", "",
         "submit the shards as a Slurm array job (DIR/sweep.sbatch) and the merge as a job "
         "after it (--dependency=afterok)"},
        {"throttle", "T", "0",
         "--slurm: at most T array tasks at once (--array=...%T); 0: no limit"},
        {"sbatch", "OPT", "", "--slurm: an sbatch option passed through (repeat for several)"},
        {"status", "DIR", "",
         "each shard of DIR: done, queued or running (squeue, sacct), failed "
         "(with its log's line) or not started"},
        {"resume", "DIR", "",
         "run what DIR still lacks: on Slurm when it was submitted there (or --slurm), else here "
         "(--jobs)"},
        {"merge", "DIR", "",
         "write DIR/sweep.csv (perplexity per model and configuration, its difference to the full "
         "cache with a 95 % bootstrap interval over texts) and DIR/overlap.csv (rows two "
         "policies both keep)"},
        {"run", "DIR", "",
         "score one shard of DIR (what each process and array task runs; --shard)"},
        {"shard", "I", "", "the shard --run scores"},
    };
}

bool sweep_grid_requested(const CliArgs& args) {
    for (const char* mode : kModes)
        if (args.has(mode)) return true;
    return false;
}

int run_sweep_grid(const CliArgs& args) {
    std::string mode;
    for (const char* m : kModes)
        if (args.has(m)) {
            if (!mode.empty())
                throw UsageError("--" + mode + " and --" + m + " are one or the other");
            mode = m;
        }
    const fs::path dir = args.get(mode);
    if (args.has("jobs") && args.has("slurm"))
        throw UsageError("--jobs runs here and --slurm on the cluster: give one");
    refuse(args, {"out"}, "is the one-text sweep's; a grid's tables go to DIR/sweep.csv");
    if (!args.has("slurm") && mode != "resume")
        refuse(args, {"throttle", "sbatch"}, "needs --slurm");
    if (mode != "run") refuse(args, {"shard"}, "needs --run DIR");
    if (mode != "plan")
        refuse(
            args,
            {"model", "file", "policy", "budgets", "sink", "window", "k-type", "v-type", "layout",
             "rope", "ctx", "seed", "gate", "cells-per-shard", "backend"},
            "describes the grid: give it with --plan, the plan in " + dir.string() + " holds it");
    if (args.has("plot")) check_output_path("--plot", args.get("plot"));

    if (mode == "run") {
        if (!args.has("shard")) throw UsageError("--run needs --shard I");
        run_shard(dir, plan_dir::read_plan(dir), int(args.get_count("shard", INT32_MAX)));
        return 0;
    }
    if (mode == "status") {
        const SweepPlan plan = plan_dir::read_plan(dir);
        std::printf("%s: %zu cells in %d shards of %d\n", plan_dir::plan(dir).c_str(),
                    plan.cells.size(), plan.shards(), plan.cells_per_shard);
        std::fputs(status_report(plan, shard_statuses(dir, plan)).c_str(), stdout);
        return 0;
    }
    if (mode == "merge") return merge(dir, args);
    if (mode == "resume") {
        const SweepPlan plan = plan_dir::read_plan(dir);
        std::vector<int> shards;
        for (const ShardStatus& st : shard_statuses(dir, plan))
            if (st.state == ShardState::Failed || st.state == ShardState::NotStarted)
                shards.push_back(st.shard);
        const bool on_slurm = args.has("slurm") || (submitted_to_slurm(dir) && !args.has("jobs"));
        if (shards.empty()) {
            std::printf("%s: nothing to resume\n", dir.c_str());
            return on_slurm ? 0 : merge(dir, args);
        }
        std::printf("resuming %zu shard(s)\n", shards.size());
        return run_shards(dir, plan, shards, args, on_slurm);
    }
    // --plan
    refuse_unread_gate(args, args.get_all("policy"));
    if (fs::exists(plan_dir::plan(dir)))
        throw UsageError("--plan " + dir.string() +
                         " already holds a plan: --resume it, or give another folder");
    const SweepPlan plan = plan_from_args(args);
    plan_dir::write_plan(dir, plan);
    std::printf("wrote %s: %zu cells (%zu models x %zu texts x %zu configurations) in %d shards\n",
                plan_dir::plan(dir).c_str(), plan.cells.size(), plan.models.size(),
                plan.texts.size(), plan.cells.size() / (plan.models.size() * plan.texts.size()),
                plan.shards());
    if (!args.has("jobs") && !args.has("slurm")) {
        std::printf("run it with: kvw sweep --resume %s --jobs N   (or --slurm)\n", dir.c_str());
        return 0;
    }
    std::vector<int> shards(size_t(plan.shards()));
    for (int s = 0; s < plan.shards(); ++s) shards[size_t(s)] = s;
    return run_shards(dir, plan, shards, args, args.has("slurm"));
}

}  // namespace kvw::cli
