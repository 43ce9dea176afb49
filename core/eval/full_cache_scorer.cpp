#include "core/eval/full_cache_scorer.h"

#include <numeric>
#include <vector>

namespace kvw {

void FullCacheScorer::score(std::span<const int32_t> chunk, int first, const LogitsSink& take) {
    // The last token is only a target: nothing after it is scored, so it is not run.
    const int n = int(chunk.size()) - 1;
    std::vector<Item> items;
    for (int i = 0; i < n; ++i) items.push_back(Item::of_token(chunk[size_t(i)]));
    std::vector<int32_t> positions(static_cast<size_t>(n));
    std::iota(positions.begin(), positions.end(), 0);
    const std::vector<LayerContext> no_context(size_t(engine_.model().config.n_layers));
    ForwardOptions options;
    options.logit_items = n - first;
    const ForwardOutput out = engine_.forward(items, positions, no_context, options);
    const size_t vocab = out.logits.size() / size_t(options.logit_items);
    for (int i = 0; i < options.logit_items; ++i)
        take(std::span<const float>(out.logits).subspan(size_t(i) * vocab, vocab));
}

}  // namespace kvw
