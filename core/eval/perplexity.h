#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/eval/chunk_scorer.h"

namespace kvw {

// Teacher-forced perplexity, chunked as llama.cpp's llama-perplexity does: chunk c holds the
// tokens [c * stride, c * stride + ctx) of the text with its first token replaced by BOS; the
// first half of a chunk is context only, and the tokens after position ctx / 2 are scored
// (ctx - 1 - ctx / 2 of them per chunk). With stride == ctx the chunks tile the text, as in
// llama-perplexity; stride == ctx / 2 makes the scored halves tile it.
struct PerplexityOptions {
    int ctx = 512;   // tokens per chunk, BOS included
    int stride = 0;  // distance between chunk starts; 0: ctx
};

// The most bytes a text to score may have (a tokenized text is ~4 bytes a token, so 64 M
// tokens): kvw perplexity / compare / sweep and the window's sweep cells read no more.
inline constexpr uint64_t kMaxTextFileBytes = uint64_t(256) << 20;

struct ChunkPlan {
    int ctx = 0;
    int stride = 0;
    int chunks = 0;
    int first = 0;  // the first position whose prediction is scored (ctx / 2)

    int scored_per_chunk() const { return ctx - 1 - first; }
};

// Throws EvalError when ctx < 4, stride < 1, or the text has fewer than ctx tokens.
ChunkPlan plan_chunks(size_t n_tokens, const PerplexityOptions& options);

struct PerplexityResult {
    ChunkPlan plan;
    int chunks = 0;                 // chunks scored so far
    int64_t scored = 0;             // tokens scored
    double nll = 0.0;               // sum over the scored tokens of -ln p(token | before it)
    std::vector<double> chunk_nll;  // the same sum per chunk

    double mean_nll() const { return scored ? nll / double(scored) : 0.0; }
    double perplexity() const;  // exp(mean_nll())
};

// Called after every chunk with the figures so far.
using PerplexityProgress = std::function<void(const PerplexityResult&)>;

// -ln softmax(logits)[target], in double.
double token_nll(std::span<const float> logits, int32_t target);

// Scores `tokens` (a tokenized text) chunk by chunk through `scorer`. Throws EvalError.
PerplexityResult perplexity(std::span<const int32_t> tokens, int32_t bos,
                            const PerplexityOptions& options, ChunkScorer& scorer,
                            const PerplexityProgress& progress = {});

}  // namespace kvw
