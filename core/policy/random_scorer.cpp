#include "core/policy/random_scorer.h"

namespace kvw {

namespace {

// SplitMix64's finaliser: a well mixed 64-bit value from any input.
uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

}  // namespace

float RandomScorer::score(const ScoredRow& row, const StateManager&) {
    const uint64_t h = mix(mix(mix(seed_) ^ uint64_t(row.layer)) ^ uint64_t(row.id));
    return float(h >> 40) * (1.0f / float(1 << 24));  // 24 bits: exact in a float
}

}  // namespace kvw
