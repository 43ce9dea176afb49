#pragma once
#include <cstdint>
#include <functional>
#include <span>

namespace kvw {

// Receives the logits that follow one position of a chunk: [vocab], valid during the call.
using LogitsSink = std::function<void(std::span<const float> logits)>;

// A way of running a model over one chunk of a text for teacher-forced scoring. The perplexity
// measure (perplexity.h) does not care how the logits are made: in one pass over a full cache
// (FullCacheScorer) or tick by tick through a Session whose policy edits the cache as it goes
// (SessionScorer). Both must give the same numbers when the policy edits nothing.
class ChunkScorer {
public:
    virtual ~ChunkScorer() = default;
    // Runs `chunk` (BOS first) and hands `take` the logits after each position
    // first, first + 1, ..., chunk.size() - 2, in order; those after position j predict
    // chunk[j + 1]. 0 <= first <= chunk.size() - 2.
    virtual void score(std::span<const int32_t> chunk, int first, const LogitsSink& take) = 0;
};

}  // namespace kvw
