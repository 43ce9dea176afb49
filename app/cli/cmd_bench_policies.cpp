// kvw bench policies: what a cache policy costs per tick (its Step 3, next to Step 4's deletes
// and forward append) and in quality (perplexity against budget over a held-out text).
#include <cstdio>

#include "commands.h"
#include "policy_eval.h"
#include "session_args.h"

namespace kvw::cli {

namespace {

int run_bench_policies(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    PolicyOptions base = policy_options_but_budget(args);
    base.budget.budget = int(args.get_count("budget", INT32_MAX));
    const std::vector<int> budgets = count_list("--budgets", args.get("budgets"));
    const EvalText text = eval_text_from_args(args);
    const std::vector<std::string> policies = selective_policy_names();

    const PerplexityResult full = score_full_cache(text);
    std::printf(
        "model %s, file %s: %zu tokens, %d chunk(s) of %d (prompt %d, %lld ticks "
        "scored), backend %s, RoPE %s\n",
        text.model->source.c_str(), text.file.c_str(), text.tokens.size(), full.chunks,
        text.chunks.ctx, text.chunks.ctx / 2 + 1, static_cast<long long>(full.scored),
        text.backend.c_str(), rope_policy_name(text.rope));
    std::printf("\nper tick at S %d + B %d + W %d (manual: full cache, no policy):\n",
                base.budget.sink, base.budget.budget, base.budget.window);
    std::printf("%-14s  %14s  %26s  %10s\n", "policy", "Step 3 us/tick", "Step 4 us/tick (del+fwd)",
                "perplexity");
    std::vector<std::string> timed = {"manual"};
    timed.insert(timed.end(), policies.begin(), policies.end());
    for (const std::string& p : timed) {
        const PolicyScore s = score_policy(text, p, base);
        std::printf("%-14s  %14.1f  %26.1f  %10.4f\n", p.c_str(), s.step3_us, s.step4_us,
                    s.result.perplexity());
    }

    std::printf("\nperplexity against B (S %d, W %d); full cache %.4f:\n", base.budget.sink,
                base.budget.window, full.perplexity());
    const std::vector<SweepPoint> points = sweep(text, policies, budgets, base);
    std::printf("%-14s", "B (rows)");
    for (int b : budgets)
        std::printf("  %9s", (std::to_string(b) + " (" +
                              std::to_string(b + base.budget.sink + base.budget.window) + ")")
                                 .c_str());
    std::printf("\n");
    for (size_t p = 0; p < policies.size(); ++p) {
        std::printf("%-14s", policies[p].c_str());
        for (size_t b = 0; b < budgets.size(); ++b)
            std::printf("  %9.4f", points[p * budgets.size() + b].result.perplexity());
        std::printf("\n");
    }
    return 0;
}

}  // namespace

CommandSpec bench_policies_command() {
    OptionTable options = policy_eval_options();
    options.insert(options.begin() + 4,
                   {"budget", "B", "20", "high-value rows per layer for the per-tick timings"});
    options.insert(options.begin() + 5, {"budgets", "B,B", "8,20,56",
                                         "high-value rows per layer for the perplexity table"});
    return {"bench policies", "",
            "per cache policy: Step 3 cost per tick beside Step 4, and perplexity against budget",
            options, run_bench_policies};
}

}  // namespace kvw::cli
