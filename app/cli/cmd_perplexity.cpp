// kvw perplexity: teacher-forced NLL and perplexity of a model over a text file, chunked as
// llama.cpp's llama-perplexity does (core/eval/perplexity.h). Without --policy each chunk is one
// pass over a full cache; with --policy it goes tick by tick through a Session whose proposer
// edits the cache as it goes, which is how a cache policy's cost in quality is measured.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "core/backend/backend_registry.h"
#include "core/eval/eval_error.h"
#include "core/eval/full_cache_scorer.h"
#include "core/eval/perplexity.h"
#include "core/eval/pricing_rope.h"
#include "core/eval/session_scorer.h"
#include "core/model/model_loader.h"
#include "core/session/trace_events.h"
#include "policy_eval.h"
#include "session_args.h"

namespace kvw::cli {
namespace {

using Clock = std::chrono::steady_clock;

std::string session_options_policy(const CliArgs& args) {
    return args.has("policy") ? args.get("policy") : "manual";
}

nlohmann::json result_json(const PerplexityResult& r) {
    const ChunkPlan& plan = r.plan;
    nlohmann::json chunks = nlohmann::json::array();
    for (const double nll : r.chunk_nll) chunks.push_back(std::exp(nll / plan.scored_per_chunk()));
    return {{"ctx", plan.ctx},
            {"stride", plan.stride},
            {"chunks", r.chunks},
            {"scored_tokens", r.scored},
            {"nll_sum", r.nll},
            {"mean_nll", r.mean_nll()},
            {"perplexity", r.perplexity()},
            {"chunk_perplexity", chunks}};
}

// The scorer and what it runs on: an engine of its own, or a Session (which owns one).
struct Scoring {
    std::unique_ptr<Backend> backend;
    std::unique_ptr<Transformer> engine;
    std::unique_ptr<Session> session;
    std::unique_ptr<ChunkScorer> scorer;
};

int run_perplexity(const CliArgs& args) {
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional()[0] + "'");
    // Quantised storage is a session's cache: --k-type / --v-type alone take the session path
    // with the manual proposer (no edits), which scores like the full cache up to storage.
    const bool through_session = args.has("policy") || args.has("k-type") || args.has("v-type");
    for (const char* session_only : {"rope", "layout", "ring-mode", "ring-size", "tokens-per-frame",
                                     "ring-sinks", "ring-checksum", "sink", "budget", "window",
                                     "gate", "seed", "wlod-k", "wlod-max", "gist-net"})
        if (!through_session && args.has(session_only))
            throw UsageError(std::string("--") + session_only +
                             " applies to the session path: give --policy too");
    const std::string path = args.get("file");
    const std::string text = read_text_file(path);
    const auto model = load_model(args.get("model"));
    PerplexityOptions options;
    options.ctx = args.has("ctx") ? int(args.get_count("ctx", INT32_MAX))
                                  : std::min(512, model->config.max_context);
    options.stride = args.has("stride") ? int(args.get_count("stride", INT32_MAX)) : options.ctx;
    if (options.ctx > model->config.max_context)
        throw UsageError("--ctx " + std::to_string(options.ctx) +
                         " exceeds the model's context of " +
                         std::to_string(model->config.max_context));
    if (options.stride < 1) throw UsageError("--stride must be >= 1");
    if (model->tokenizer.bos_id() < 0)
        throw UsageError("the model has no BOS token to start chunks with");

    const std::vector<int32_t> tokens = model->tokenizer.encode(text, true);
    const Clock::time_point start = Clock::now();
    const auto progress = [&](const PerplexityResult& r) {
        spdlog::info("[perplexity] chunk {}/{}: perplexity {:.4f} over {} tokens ({:.1f} s)",
                     r.chunks, r.plan.chunks, r.perplexity(), r.scored,
                     std::chrono::duration<double>(Clock::now() - start).count());
    };

    Scoring scoring;
    if (through_session) {
        SessionOptions session_options;
        session_options.model = args.get("model");
        session_options.backend = args.get("backend");
        session_options.capacity = options.ctx;
        session_options.proposer = "manual";  // --k-type / --v-type alone: no edits
        read_session_options(args, session_options);
        if (!args.has("rope"))
            session_options.rope_policy = pricing_rope_policy(session_options.wlod_k);
        scoring.session = std::make_unique<Session>(session_options, model);
        scoring.scorer = std::make_unique<SessionScorer>(*scoring.session);
    } else {
        scoring.backend = create_backend(args.get("backend"));
        scoring.engine = std::make_unique<Transformer>(model, *scoring.backend, options.ctx);
        scoring.scorer = std::make_unique<FullCacheScorer>(*scoring.engine);
    }
    PerplexityResult result;
    try {
        result = perplexity(tokens, model->tokenizer.bos_id(), options, *scoring.scorer, progress);
    } catch (const EvalError& e) {
        throw EvalError(path + ": " + e.what());
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const ChunkPlan& plan = result.plan;
    // The full cache holds every row at its position: original's phases.
    const std::string rope_name = rope_policy_name(
        through_session ? scoring.session->options().rope_policy : RopePolicy::Original);

    if (args.has("json")) {
        nlohmann::json out = result_json(result);
        out["model"] = model->source;
        out["file"] = path;
        out["text_tokens"] = tokens.size();
        out["path"] = through_session ? "session" : "full-cache";
        out["rope"] = rope_name;
        if (through_session) {
            out["policy"] = session_options_policy(args);
            out["policy_options"] = policy_options_json(scoring.session->options().policy);
            out["k_type"] = args.get("k-type");
            out["v_type"] = args.get("v-type");
        }
        out["seconds"] = seconds;
        print_json(out);
        return 0;
    }
    std::printf("model %s, file %s: %zu tokens\n", model->source.c_str(), path.c_str(),
                tokens.size());
    std::printf("%d chunks of %d tokens (stride %d, %s), %lld tokens scored\n", result.chunks,
                plan.ctx, plan.stride,
                through_session ? ("session, policy " + session_options_policy(args) + ", K " +
                                   args.get("k-type") + ", V " + args.get("v-type"))
                                      .c_str()
                                : "full cache",
                static_cast<long long>(result.scored));
    std::printf("mean NLL %.6f nats/token, perplexity %.4f (RoPE %s)\n", result.mean_nll(),
                result.perplexity(), rope_name.c_str());
    return 0;
}

}  // namespace

CommandSpec perplexity_command() {
    OptionTable options = {
        model_option(),
        {"file", "TEXT", "", "the text to score (UTF-8)", true},
        {"ctx", "N", "",
         "tokens per chunk, BOS first; the second half is scored "
         "(default: the model's context, at most 512)"},
        {"stride", "S", "", "distance between chunk starts (default: --ctx)"},
    };
    for (OptionSpec o : session_options()) {
        if (o.name == "policy") {
            o.fallback.clear();
            o.help +=
                "; given, each chunk runs tick by tick through a Session with this "
                "proposer (default: one pass per chunk over the full cache)";
        }
        if (o.name == "k-type" || o.name == "v-type")
            o.help += "; given, the session path (its --policy defaults to manual)";
        if (o.name == "rope") {
            o = pricing_rope_option();
            o.help += "; with --wlod-k, final_index (gists take no other)";
        }
        options.push_back(o);
    }
    options.push_back({"seed", "S", "0", "seed of the random policy"});
    options.push_back(backend_option("auto"));
    options.push_back(json_option());
    return {"perplexity", "",
            "teacher-forced NLL and perplexity over a text file, chunked like llama-perplexity",
            options, run_perplexity};
}

}  // namespace kvw::cli
