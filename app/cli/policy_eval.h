#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cli_args.h"
#include "core/eval/perplexity.h"
#include "core/eval/pricing_rope.h"
#include "core/session/session.h"

// Scoring a text through the cache a policy keeps: what kvw compare, kvw sweep and
// kvw bench policies share (docs/ARCHITECTURE.md §12).
namespace kvw::cli {

// A text file's contents (at most kMaxTextFileBytes, core/eval/perplexity.h); UsageError naming the
// file when it cannot be read, is not a regular file or holds more than kMaxTextFileBytes.
std::string read_text_file(const std::string& path);

// The options these commands share: --model, --file, --ctx, --sink, --window, --seed, --gate,
// --rope, --backend. --budget and --policy differ per command and are added by each.
OptionTable policy_eval_options();
// --rope with the default of every pricing path (core/eval/pricing_rope.h).
OptionSpec pricing_rope_option();

struct PolicyScore {
    std::string policy;
    PolicyOptions options;
    PerplexityResult result;
    std::unique_ptr<Session> session;  // its state after the last chunk's last tick
    double step3_us = 0;               // per tick: the proposer (plan + bookkeeping)
    double step4_us = 0;               // per tick: pre-flight, deletes and the forward append
};

// What the commands read from their options: the model, the text's tokens and the chunking.
struct EvalText {
    std::shared_ptr<const Model> model;
    std::vector<int32_t> tokens;  // BOS first
    PerplexityOptions chunks;     // ctx from --ctx, stride = ctx
    std::string backend;
    std::string file;
    RopePolicy rope = kPricingRopePolicy;
};
EvalText eval_text_from_args(const CliArgs& args);
// The text of `file` tokenized for `model`, in chunks of `ctx` (a sweep's cell): UsageError
// naming the file when it cannot be read or holds fewer tokens than a chunk.
EvalText eval_text(std::shared_ptr<const Model> model, const std::string& file, int ctx,
                   const std::string& backend, RopePolicy rope);

// Teacher-forced perplexity of the text through a Session with the policy (SessionScorer).
PolicyScore score_policy(const EvalText& text, const std::string& policy,
                         const PolicyOptions& options);
// The same through a Session built from `options` (its proposer, budgets, K/V types, layout,
// RoPE policy); the model, backend and capacity (a chunk) are the text's.
PolicyScore score_session(const EvalText& text, SessionOptions options);
// The same chunks over the full cache (FullCacheScorer): the price's zero.
PerplexityResult score_full_cache(const EvalText& text);

// One point of a sweep: a policy at a budget B (S and W fixed).
struct SweepPoint {
    std::string policy;
    PolicyOptions options;
    PerplexityResult result;
    double step3_us = 0, step4_us = 0;
};
// Every policy at every budget, in that order; `progress` lines go to the log.
std::vector<SweepPoint> sweep(const EvalText& text, const std::vector<std::string>& policies,
                              const std::vector<int>& budgets, const PolicyOptions& base);
// The selective policies of the table, in table order.
std::vector<std::string> selective_policy_names();

// "8,16,32" as counts; UsageError naming the option otherwise.
std::vector<int> count_list(const std::string& option, const std::string& text);

}  // namespace kvw::cli
