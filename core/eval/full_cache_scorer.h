#pragma once
#include "core/engine/transformer.h"
#include "core/eval/chunk_scorer.h"

namespace kvw {

// The fast path: the whole chunk in one forward pass over an empty cache (every row kept), with
// logits for the scored positions only.
class FullCacheScorer : public ChunkScorer {
public:
    explicit FullCacheScorer(const Transformer& engine) : engine_(engine) {}
    void score(std::span<const int32_t> chunk, int first, const LogitsSink& take) override;

private:
    const Transformer& engine_;
};

}  // namespace kvw
