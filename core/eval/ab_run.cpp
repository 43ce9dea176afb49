#include "core/eval/ab_run.h"

#include <algorithm>
#include <string>

#include "core/eval/pricing_rope.h"
#include "core/eval/session_scorer.h"
#include "core/session/log_channel.h"

namespace kvw {

namespace {

SessionOptions side_options(SessionOptions base, const AbPolicy& side) {
    base.proposer = side.name;
    base.policy = side.options;
    base.rope_policy = pricing_rope_policy(base.wlod_k);  // whatever the session runs
    return base;
}

bool is_prefix(std::span<const int32_t> head, std::span<const int32_t> of) {
    return head.size() <= of.size() && std::equal(head.begin(), head.end(), of.begin());
}

}  // namespace

TokenStream token_stream(const Session& session) {
    TokenStream s;
    if (!session.started()) return s;
    for (const LedgerEntry& e : session.state().ledger().entries()) {
        if (e.kind == EntryKind::Prompt) {
            s.prompt.push_back(e.token_id);
        } else if (e.kind == EntryKind::Generated) {
            const bool aborted = !e.removal.empty() && e.removal.front().tick >= 0 &&
                                 e.removal.front().cause.reason == RemovalReason::TickAborted;
            if (!aborted) s.generated.push_back(e.token_id);
        }
    }
    return s;
}

AbRun::AbRun(std::shared_ptr<const Model> model, SessionOptions base, AbPolicy a, AbPolicy b)
    : model_(std::move(model)), a_policy_(std::move(a)), b_policy_(std::move(b)) {
    const LogChannelScope hidden(kHiddenLogChannel);
    a_ = std::make_unique<Session>(side_options(base, a_policy_), model_);
    b_ = std::make_unique<Session>(side_options(base, b_policy_), model_);
}

void AbRun::follow(const TokenStream& stream) {
    if (stream.prompt.empty()) return;
    const LogChannelScope hidden(kHiddenLogChannel);
    if (stream.prompt != ran_.prompt || !is_prefix(ran_.generated, stream.generated)) {
        ran_ = {stream.prompt, {}};
        nll_a_ = {};
        nll_b_ = {};
        a_->start_tokens(stream.prompt);
        b_->start_tokens(stream.prompt);
    }
    for (size_t i = ran_.generated.size(); i < stream.generated.size(); ++i)
        force(stream.generated[i]);
}

void AbRun::force(int32_t token) {
    const std::string where =
        "token " + std::to_string(ran_.generated.size()) + " after the prompt";
    for (auto [side, nll] : {std::pair{a_.get(), &nll_a_}, std::pair{b_.get(), &nll_b_}}) {
        nll->nll += token_nll(side->state().last_logits(), token);
        ++nll->scored;
        step_forced_or_throw(*side, token, where + " (" + side->options().proposer + ")");
    }
    ran_.generated.push_back(token);
}

std::shared_ptr<const AbFrame> AbRun::frame() const {
    auto f = std::make_shared<AbFrame>();
    f->a = a_policy_;
    f->b = b_policy_;
    f->rope = a_->options().rope_policy;
    f->prompt_tokens = int64_t(ran_.prompt.size());
    f->nll_a = nll_a_;
    f->nll_b = nll_b_;
    if (!a_->started()) return f;
    const Ledger& ledger = a_->state().ledger();
    for (const LedgerEntry& e : ledger.entries()) {
        f->tokens.push_back(e.token_id);
        f->pieces.push_back(e.piece);
    }
    for (int l = 0; l < a_->state().n_layers(); ++l) {
        const std::vector<int64_t>& x = a_->state().layer_map(l).pos2ledger;
        const std::vector<int64_t>& y = b_->state().layer_map(l).pos2ledger;
        f->kept.push_back(ab_kept(x, y, ledger.size()));
        f->counts.push_back(ab_counts(x, y));
    }
    return f;
}

}  // namespace kvw
