// kvw compare: two cache policies on the same text at the same budget — per layer, how many of
// the rows they keep they share, and what each costs in NLL against the full cache.
#include <cstdio>

#include "commands.h"
#include "common_options.h"
#include "core/eval/ab_compare.h"
#include "core/session/trace_events.h"
#include "policy_eval.h"
#include "session_args.h"

namespace kvw::cli {

namespace {

int run_compare(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    const std::vector<std::string> policies = args.get_all("policy");
    if (policies.size() != 2)
        throw UsageError("give --policy exactly twice: --policy A --policy B");
    refuse_unread_gate(args, policies);
    const PolicyOptions options = policy_options_from_args(args);
    const EvalText text = eval_text_from_args(args);
    const PerplexityResult full = score_full_cache(text);
    const PolicyScore a = score_policy(text, policies[0], options);
    const PolicyScore b = score_policy(text, policies[1], options);
    const int layers = a.session->state().n_layers();
    // Both sessions forced the same tokens, so a ledger id names the same token in both.
    std::vector<AbCounts> per_layer;
    for (int l = 0; l < layers; ++l)
        per_layer.push_back(ab_counts(a.session->state().layer_map(l).pos2ledger,
                                      b.session->state().layer_map(l).pos2ledger));

    if (args.has("json")) {
        nlohmann::json out = {{"model", text.model->source},
                              {"file", text.file},
                              {"ctx", text.chunks.ctx},
                              {"chunks", full.chunks},
                              {"scored_tokens", full.scored},
                              {"policy_options", policy_options_json(options)},
                              {"rope", rope_policy_name(text.rope)},
                              {"full_cache_mean_nll", full.mean_nll()}};
        for (const PolicyScore* s : {&a, &b})
            out["policies"].push_back({{"policy", s->policy},
                                       {"mean_nll", s->result.mean_nll()},
                                       {"perplexity", s->result.perplexity()}});
        out["nll_difference"] = b.result.mean_nll() - a.result.mean_nll();
        for (const AbCounts& o : per_layer)
            out["layers"].push_back(
                {{"kept_a", o.a}, {"kept_b", o.b}, {"both", o.both}, {"jaccard", o.jaccard()}});
        print_json(out);
        return 0;
    }
    const PolicyBudget& bd = options.budget;
    std::printf("model %s, file %s: %zu tokens; %d chunk(s) of %d, %lld tokens scored\n",
                text.model->source.c_str(), text.file.c_str(), text.tokens.size(), full.chunks,
                text.chunks.ctx, static_cast<long long>(full.scored));
    std::printf("budget per layer: S %d + B %d + W %d = %d rows (prompt %d tokens); RoPE %s\n",
                bd.sink, bd.budget, bd.window, bd.sink + bd.budget + bd.window,
                text.chunks.ctx / 2 + 1, rope_policy_name(text.rope));
    std::printf("%-14s  %10s  %10s  %12s\n", "policy", "mean NLL", "perplexity", "vs full");
    std::printf("%-14s  %10.5f  %10.4f  %12s\n", "full cache", full.mean_nll(), full.perplexity(),
                "");
    for (const PolicyScore* s : {&a, &b})
        std::printf("%-14s  %10.5f  %10.4f  %+12.5f\n", s->policy.c_str(), s->result.mean_nll(),
                    s->result.perplexity(), s->result.mean_nll() - full.mean_nll());
    std::printf("NLL difference %s - %s: %+.5f nats/token\n", b.policy.c_str(), a.policy.c_str(),
                b.result.mean_nll() - a.result.mean_nll());
    std::printf("kept rows after the last tick of the last chunk:\n");
    std::printf("layer  %6s  %6s  %6s  %6s  %6s  %7s\n", "A", "B", "both", "A only", "B only",
                "overlap");
    for (int l = 0; l < layers; ++l) {
        const AbCounts& o = per_layer[size_t(l)];
        std::printf("%5d  %6d  %6d  %6d  %6d  %6d  %7.3f\n", l, o.a, o.b, o.both, o.a_only(),
                    o.b_only(), o.jaccard());
    }
    return 0;
}

}  // namespace

CommandSpec compare_command() {
    OptionTable options = policy_eval_options();
    options.insert(options.begin() + 2,
                   {"policy", "NAME", "", "a policy to compare; give it twice (A, then B)", true});
    options.insert(options.begin() + 5, {"budget", "B", std::to_string(PolicyBudget{}.budget),
                                         "high-value rows per layer"});
    options.push_back(json_option());
    return {"compare", "",
            "two cache policies on one text: per-layer overlap of the rows kept and the NLL "
            "difference",
            options, run_compare};
}

}  // namespace kvw::cli
