#include "policy_eval.h"

#include <sstream>

#include <spdlog/spdlog.h>

#include "common_options.h"
#include "core/backend/backend_registry.h"
#include "core/eval/full_cache_scorer.h"
#include "core/eval/pricing_rope.h"
#include "core/eval/session_scorer.h"
#include "core/io/regular_file.h"
#include "core/model/model_loader.h"
#include "core/policy/policy_table.h"

namespace kvw::cli {

OptionSpec pricing_rope_option() {
    return {
        "rope", "NAME", rope_policy_name(kPricingRopePolicy),
        "RoPE position policy a cache policy is priced under: " + names_in(kRopePolicyNames, ", ") +
            "; the default is the same for every command that prices one and for the "
            "window's A/B (original keeps every row at its position in the text)"};
}

std::string read_text_file(const std::string& path) {
    try {
        return read_regular_file(path, kMaxTextFileBytes);
    } catch (const FileReadError& e) {
        throw UsageError(std::string("cannot read ") + e.what());
    }
}

OptionTable policy_eval_options() {
    const PolicyBudget fallback;
    return {
        model_option(),
        {"file", "TEXT", "", "the text to score (UTF-8)", true},
        {"ctx", "N", "256",
         "tokens per chunk, BOS first: the first half is the prompt (prefilled whole), the "
         "second half is scored tick by tick"},
        {"sink", "S", std::to_string(fallback.sink), "rows every layer keeps from the start"},
        {"window", "W", std::to_string(fallback.window),
         "most recent rows every layer keeps (at least 1)"},
        {"seed", "S", "0", "seed of the random policy"},
        {"gate", "FILE", "",
         "smartkv's gate sidecar (default: the NAME.gate.gguf beside the model)"},
        pricing_rope_option(),
        backend_option("auto"),
    };
}

EvalText eval_text(std::shared_ptr<const Model> model, const std::string& file, int ctx,
                   const std::string& backend, RopePolicy rope) {
    EvalText t;
    t.file = file;
    const std::string text = read_text_file(t.file);
    t.model = std::move(model);
    t.backend = backend;
    t.rope = rope;
    t.chunks.ctx = ctx;
    t.chunks.stride = t.chunks.ctx;
    if (t.chunks.ctx < 4) throw UsageError("--ctx must be at least 4");
    if (t.model->tokenizer.bos_id() < 0)
        throw UsageError("the model has no BOS token to start chunks with");
    t.tokens = t.model->tokenizer.encode(text, true);
    if (int(t.tokens.size()) < t.chunks.ctx)
        throw UsageError(t.file + " has " + std::to_string(t.tokens.size()) +
                         " tokens, fewer than --ctx " + std::to_string(t.chunks.ctx));
    return t;
}

EvalText eval_text_from_args(const CliArgs& args) {
    const std::string file = args.get("file");
    read_text_file(file);  // an unreadable text is named before the model is loaded
    auto model = load_model(args.get("model"));
    const int ctx = int(args.get_count("ctx", model->config.max_context));
    return eval_text(std::move(model), file, ctx, args.get("backend"),
                     named_option(args, "rope", kRopePolicyNames));
}

PolicyScore score_policy(const EvalText& text, const std::string& policy,
                         const PolicyOptions& options) {
    if (!find_policy(policy)) throw UsageError("unknown policy '" + policy + "'");
    SessionOptions so;
    so.proposer = policy;
    so.policy = options;
    so.rope_policy = text.rope;
    return score_session(text, so);
}

PolicyScore score_session(const EvalText& text, SessionOptions so) {
    PolicyScore s;
    s.policy = so.proposer;
    s.options = so.policy;
    so.model = text.model->source;
    so.backend = text.backend;
    so.capacity = text.chunks.ctx;
    s.session = std::make_unique<Session>(so, text.model);
    SessionScorer scorer(*s.session);
    s.result = perplexity(text.tokens, text.model->tokenizer.bos_id(), text.chunks, scorer);
    const int64_t ticks = std::max<int64_t>(1, s.session->timed_ticks());
    s.step3_us = 1000.0 * s.session->summed_timings().propose_ms / double(ticks);
    s.step4_us = 1000.0 * s.session->summed_timings().apply_ms / double(ticks);
    return s;
}

PerplexityResult score_full_cache(const EvalText& text) {
    const auto backend = create_backend(text.backend);
    Transformer engine(text.model, *backend, text.chunks.ctx);
    FullCacheScorer scorer(engine);
    return perplexity(text.tokens, text.model->tokenizer.bos_id(), text.chunks, scorer);
}

std::vector<SweepPoint> sweep(const EvalText& text, const std::vector<std::string>& policies,
                              const std::vector<int>& budgets, const PolicyOptions& base) {
    std::vector<SweepPoint> points;
    for (const std::string& policy : policies)
        for (int b : budgets) {
            PolicyOptions o = base;
            o.budget.budget = b;
            PolicyScore s = score_policy(text, policy, o);
            spdlog::info("[sweep] {} S {} B {} W {}: perplexity {:.4f} (RoPE {})", policy,
                         o.budget.sink, b, o.budget.window, s.result.perplexity(),
                         rope_policy_name(text.rope));
            points.push_back({policy, o, s.result, s.step3_us, s.step4_us});
        }
    return points;
}

std::vector<std::string> selective_policy_names() {
    std::vector<std::string> names;
    for (const PolicyInfo& p : policy_table())
        if (p.selective) names.emplace_back(p.name);
    return names;
}

std::vector<int> count_list(const std::string& option, const std::string& text) {
    std::vector<int> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        out.push_back(int(parse_count(option, item, INT32_MAX)));
    if (out.empty()) throw UsageError(option + " needs at least one count");
    return out;
}

}  // namespace kvw::cli
