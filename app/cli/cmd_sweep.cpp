// kvw sweep: perplexity against budget for each policy, as CSV (docs/ARCHITECTURE.md §12), and
// with --plot as a PNG drawn from that CSV by kvw-plot-sweep (a Qt program beside kvw). One
// model and one text here; a grid of models, texts and configurations (--plan, run locally or
// on Slurm) is sweep/sweep_grid_command.cpp.
#include <cstdio>

#include "commands.h"
#include "common_options.h"
#include "core/io/replacing_file.h"
#include "policy_eval.h"
#include "program_beside.h"
#include "session_args.h"
#include "sweep/sweep_grid_command.h"

namespace kvw::cli {

namespace {

std::string csv(const EvalText& text, const PerplexityResult& full,
                const std::vector<SweepPoint>& points) {
    std::string out =
        "policy,sink,budget,window,rows_per_layer,ctx,scored_tokens,mean_nll,perplexity,rope\n";
    char line[256];
    // The full cache holds every row at its position: original's phases.
    std::snprintf(line, sizeof line, "full,,,,,%d,%lld,%.6f,%.6f,%s\n", text.chunks.ctx,
                  static_cast<long long>(full.scored), full.mean_nll(), full.perplexity(),
                  rope_policy_name(RopePolicy::Original));
    out += line;
    for (const SweepPoint& p : points) {
        const PolicyBudget& b = p.options.budget;
        std::snprintf(line, sizeof line, "%s,%d,%d,%d,%d,%d,%lld,%.6f,%.6f,%s\n", p.policy.c_str(),
                      b.sink, b.budget, b.window, b.sink + b.budget + b.window, text.chunks.ctx,
                      static_cast<long long>(p.result.scored), p.result.mean_nll(),
                      p.result.perplexity(), rope_policy_name(text.rope));
        out += line;
    }
    return out;
}

int run_sweep(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    if (sweep_grid_requested(args)) return run_sweep_grid(args);
    for (const OptionSpec& o : sweep_grid_options())
        if (args.has(o.name))
            throw UsageError("--" + o.name + " is a grid's option: give --plan DIR");
    if (args.get_all("model").size() > 1 || args.get_all("file").size() > 1)
        throw UsageError("several --model or --file make a grid: give --plan DIR");
    if (!args.has("file")) throw UsageError("--file is required");
    std::vector<std::string> policies = args.get_all("policy");
    if (policies.empty()) policies = selective_policy_names();
    refuse_unread_gate(args, policies);
    const std::vector<int> budgets = count_list("--budgets", args.get("budgets"));
    if (args.has("plot") && !args.has("out"))
        throw UsageError("--plot needs --out CSV: the plot is drawn from that file");
    check_output_options(args, {"out", "plot"});
    PolicyOptions base = policy_options_but_budget(args);
    const EvalText text = eval_text_from_args(args);
    const PerplexityResult full = score_full_cache(text);
    const std::string table = csv(text, full, sweep(text, policies, budgets, base));
    if (!args.has("out")) {
        std::fputs(table.c_str(), stdout);
        return 0;
    }
    write_file_atomically(args.get("out"), table);
    std::printf("wrote %s\n", args.get("out").c_str());
    if (args.has("plot"))
        return exec_beside("kvw sweep --plot", "kvw-plot-sweep",
                           {args.get("out"), args.get("plot")});
    return 0;
}

}  // namespace

CommandSpec sweep_command() {
    OptionTable options = policy_eval_options();
    options.insert(
        options.begin() + 2,
        {"policy", "NAME", "",
         "a policy to sweep; repeat for several (default: every selective policy; with --plan "
         "also full, the full cache)"});
    options.insert(options.begin() + 4,
                   {"budgets", "B,B", "8,16,32,64", "high-value rows per layer to try"});
    for (OptionSpec& o : options)
        if (o.name == "file") {
            o.required = false;  // the grid's --status, --merge, ... read a plan instead
            o.help =
                "the text to score (UTF-8): required for one text; with --plan repeat it, "
                "or give a folder or a *.list file";
        }
    options.push_back({"out", "CSV", "", "write the CSV there (default: stdout)"});
    options.push_back(
        {"plot", "PNG", "",
         "also draw the CSV there: perplexity against rows per layer, a line per "
         "policy (runs kvw-plot-sweep, built with the GUI next to kvw; needs --out, or a grid's "
         "--merge / --jobs: then with the bootstrap interval as a band)"});
    for (const OptionSpec& o : sweep_grid_options()) options.push_back(o);
    return {"sweep", "", "perplexity against budget per cache policy, as CSV and a PNG plot",
            options, run_sweep};
}

}  // namespace kvw::cli
