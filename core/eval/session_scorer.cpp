#include "core/eval/session_scorer.h"

#include <string>

#include "core/eval/eval_error.h"

namespace kvw {

void step_forced_or_throw(Session& session, int32_t token, const std::string& what) {
    const TickResult result = session.step_forced(token);
    if (result.rejected || result.aborted)
        throw EvalError("the tick that feeds " + what + " was " +
                        (result.rejected ? "rejected"
                                         : "aborted in " + result.failed_primitive + ": " +
                                               result.abort_reason) +
                        "; its token was not appended");
}

void SessionScorer::score(std::span<const int32_t> chunk, int first, const LogitsSink& take) {
    session_.start_tokens(chunk.subspan(0, size_t(first) + 1));
    take(session_.state().last_logits());
    for (size_t j = size_t(first) + 1; j + 1 < chunk.size(); ++j) {
        step_forced_or_throw(session_, chunk[j], "chunk position " + std::to_string(j));
        take(session_.state().last_logits());
    }
}

}  // namespace kvw
