#include "core/eval/session_scorer.h"

#include <string>

#include "core/eval/eval_error.h"

namespace kvw {

void SessionScorer::score(std::span<const int32_t> chunk, int first, const LogitsSink& take) {
    session_.start_tokens(chunk.subspan(0, size_t(first) + 1));
    take(session_.state().last_logits());
    for (size_t j = size_t(first) + 1; j + 1 < chunk.size(); ++j) {
        const TickResult result = session_.step_forced(chunk[j]);
        // A rejected or aborted list appended nothing (an aborted one put the mirror back):
        // the logits would still be the previous position's.
        if (result.rejected || result.aborted)
            throw EvalError("the tick that feeds chunk position " + std::to_string(j) + " was " +
                            (result.rejected ? "rejected"
                                             : "aborted in " + result.failed_primitive + ": " +
                                                   result.abort_reason) +
                            "; its token was not appended");
        take(session_.state().last_logits());
    }
}

}  // namespace kvw
