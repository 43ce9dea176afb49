#pragma once
#include <string>
#include "core/eval/chunk_scorer.h"

#include "core/session/session.h"

namespace kvw {

// Session::step_forced(token), or EvalError naming `what` (the position it feeds) when the tick
// was rejected or aborted: it appended nothing, so the logits would still be the previous ones.
void step_forced_or_throw(Session& session, int32_t token, const std::string& what);

// The coupled path: the chunk's context (positions 0 .. first) is the session's prompt, then
// every further token goes in as one teacher-forced tick (Session::step_forced), so the
// session's proposer may delete, merge or insert rows between the predictions it is scored on,
// exactly as it would while generating. The session needs room for a whole chunk.
class SessionScorer : public ChunkScorer {
public:
    explicit SessionScorer(Session& session) : session_(session) {}
    // Throws SessionError when a tick is rejected (the token could not be appended).
    void score(std::span<const int32_t> chunk, int first, const LogitsSink& take) override;

private:
    Session& session_;
};

}  // namespace kvw
