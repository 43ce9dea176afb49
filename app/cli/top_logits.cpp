#include "top_logits.h"

#include <algorithm>

namespace kvw::cli {

std::vector<RankedLogit> top_logits(std::span<const float> logits, int k) {
    std::vector<RankedLogit> all;
    all.reserve(logits.size());
    for (size_t i = 0; i < logits.size(); ++i) all.push_back({int32_t(i), logits[i]});
    const size_t n = std::min(all.size(), size_t(std::max(k, 0)));
    std::partial_sort(all.begin(), all.begin() + ptrdiff_t(n), all.end(),
                      [](const RankedLogit& a, const RankedLogit& b) {
                          return a.logit != b.logit ? a.logit > b.logit : a.id < b.id;
                      });
    all.resize(n);
    return all;
}

}  // namespace kvw::cli
