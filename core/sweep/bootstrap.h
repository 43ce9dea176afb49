#pragma once
#include <cstdint>
#include <span>

namespace kvw {

// A text's share of one configuration's score: its summed NLL and scored tokens.
struct TextScore {
    double nll = 0;
    int64_t scored = 0;
};

// exp(sum nll / sum scored): the perplexity of the texts taken as one stream (token-weighted),
// summed in the order given.
double pooled_perplexity(std::span<const TextScore> texts);

struct Interval {
    double low = 0, high = 0;
};

// The 95 % percentile bootstrap interval of pooled_perplexity(a) - pooled_perplexity(b) over
// texts: `resamples` draws of n texts with replacement (the same text indices on both sides:
// a and b are paired by text), the 25th and 975th of 1,000 sorted differences. The
// generator is std::mt19937_64 (fully specified by the standard) from a fixed seed and a text
// is drawn as next() % n, so the interval is the same on every machine and every run, which
// the byte-identical tables need. a and b have one entry per text, in the same order.
Interval bootstrap_difference(std::span<const TextScore> a, std::span<const TextScore> b,
                              int resamples = 1000);

}  // namespace kvw
