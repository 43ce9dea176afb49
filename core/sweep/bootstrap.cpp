#include "bootstrap.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace kvw {

namespace {

constexpr uint64_t kBootstrapSeed = 0x6b76772d73776570ull;  // "kvw-swep"

}  // namespace

double pooled_perplexity(std::span<const TextScore> texts) {
    double nll = 0;
    int64_t scored = 0;
    for (const TextScore& t : texts) {
        nll += t.nll;
        scored += t.scored;
    }
    return scored > 0 ? std::exp(nll / double(scored)) : 0.0;
}

Interval bootstrap_difference(std::span<const TextScore> a, std::span<const TextScore> b,
                              int resamples) {
    const size_t n = a.size();
    if (n == 0 || b.size() != n || resamples < 1) return {};
    std::mt19937_64 generator(kBootstrapSeed);
    std::vector<TextScore> ra(n), rb(n);
    std::vector<double> differences;
    differences.reserve(size_t(resamples));
    for (int r = 0; r < resamples; ++r) {
        for (size_t i = 0; i < n; ++i) {
            const size_t pick = size_t(generator() % n);
            ra[i] = a[pick];
            rb[i] = b[pick];
        }
        differences.push_back(pooled_perplexity(ra) - pooled_perplexity(rb));
    }
    std::sort(differences.begin(), differences.end());
    // The k-th smallest of R (1-based), k = ceil(q R): 25th and 975th of 1,000.
    const auto at = [&](double q) {
        const auto k = size_t(std::ceil(q * double(resamples)));
        return differences[std::clamp<size_t>(k, 1, differences.size()) - 1];
    };
    return {at(0.025), at(0.975)};
}

}  // namespace kvw
