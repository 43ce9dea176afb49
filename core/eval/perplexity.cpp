#include "core/eval/perplexity.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/eval/eval_error.h"

namespace kvw {

ChunkPlan plan_chunks(size_t n_tokens, const PerplexityOptions& options) {
    ChunkPlan plan;
    plan.ctx = options.ctx;
    plan.stride = options.stride > 0 ? options.stride : options.ctx;
    // ctx 4 is the least that leaves a context of two and one scored token after it.
    if (plan.ctx < 4)
        throw EvalError("the chunk size must be at least 4 tokens, got " +
                        std::to_string(plan.ctx));
    if (options.stride < 0)
        throw EvalError("the stride must be at least 1, got " + std::to_string(options.stride));
    if (n_tokens < size_t(plan.ctx))
        throw EvalError("the text has " + std::to_string(n_tokens) +
                        " tokens, fewer than one chunk of " + std::to_string(plan.ctx));
    plan.chunks = int((n_tokens - size_t(plan.ctx)) / size_t(plan.stride)) + 1;
    plan.first = plan.ctx / 2;
    return plan;
}

double PerplexityResult::perplexity() const { return std::exp(mean_nll()); }

double token_nll(std::span<const float> logits, int32_t target) {
    const double peak = *std::max_element(logits.begin(), logits.end());
    double sum = 0.0;
    for (const float z : logits) sum += std::exp(double(z) - peak);
    return peak + std::log(sum) - double(logits[size_t(target)]);
}

PerplexityResult perplexity(std::span<const int32_t> tokens, int32_t bos,
                            const PerplexityOptions& options, ChunkScorer& scorer,
                            const PerplexityProgress& progress) {
    PerplexityResult result;
    result.plan = plan_chunks(tokens.size(), options);
    const ChunkPlan& plan = result.plan;
    std::vector<int32_t> chunk(size_t(plan.ctx));
    for (int c = 0; c < plan.chunks; ++c) {
        const auto start = tokens.begin() + ptrdiff_t(c) * plan.stride;
        std::copy(start, start + plan.ctx, chunk.begin());
        chunk[0] = bos;
        double nll = 0.0;
        int position = plan.first;
        scorer.score(chunk, plan.first, [&](std::span<const float> logits) {
            nll += token_nll(logits, chunk[size_t(++position)]);
        });
        if (position != plan.ctx - 1)
            throw EvalError("the scorer gave " + std::to_string(position - plan.first) +
                            " predictions for a chunk, expected " +
                            std::to_string(plan.scored_per_chunk()));
        result.chunks = c + 1;
        result.scored += plan.scored_per_chunk();
        result.nll += nll;
        result.chunk_nll.push_back(nll);
        if (progress) progress(result);
    }
    return result;
}

}  // namespace kvw
