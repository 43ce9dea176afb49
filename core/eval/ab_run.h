#pragma once
#include <memory>
#include <span>
#include <vector>

#include "core/eval/ab_compare.h"
#include "core/session/session.h"

namespace kvw {

// The tokens a session's sequence is made of, whatever edits did to its rows since: the prompt
// records (BOS first), then the token each tick appended, in ledger order. A tick that aborted
// appended nothing, though its record stays in the ledger.
struct TokenStream {
    std::vector<int32_t> prompt;
    std::vector<int32_t> generated;
};
TokenStream token_stream(const Session& session);

// Policy A and policy B on one model, fed the same tokens (docs/ARCHITECTURE.md §12, A/B): each
// side is a Session of its own that prefills the prompt whole and then takes every further
// token as a teacher-forced tick, scoring it first under its own cache (the NLL of the logits
// before the tick, as SessionScorer does for `kvw perplexity` and `kvw compare`). Both only
// ever append, so ledger id i is the i-th token on both sides. Nobody looks at the two sides as
// sessions: they log on kHiddenLogChannel (core/session/log_channel.h), so that their starts
// and prompts do not read as the user's session restarting in the window's log.
class AbRun {
public:
    // `base`: what both sides share (model spec, backend, capacity, K/V types, wLOD); each
    // side's proposer and policy options replace base's, and both are priced under the one
    // RoPE policy of every pricing path (pricing_rope_policy), not the session's.
    // UnknownProposer, PolicyInputError.
    AbRun(std::shared_ptr<const Model> model, SessionOptions base, AbPolicy a, AbPolicy b);

    // Brings both sides to `stream`: only its new tokens are forced when what they ran is a
    // prefix of it; otherwise both start again from its prompt. EvalError when a side's tick
    // is rejected or aborted (its cache is full).
    void follow(const TokenStream& stream);
    std::shared_ptr<const AbFrame> frame() const;

    const AbPolicy& policy_a() const { return a_policy_; }
    const AbPolicy& policy_b() const { return b_policy_; }
    const Model& model() const { return *model_; }
    const Session& a() const { return *a_; }  // side A, to compare with the session it follows

private:
    void force(int32_t token);

    std::shared_ptr<const Model> model_;
    AbPolicy a_policy_, b_policy_;
    std::unique_ptr<Session> a_, b_;
    TokenStream ran_;  // what both sides were fed
    PerplexityResult nll_a_, nll_b_;
};

}  // namespace kvw
