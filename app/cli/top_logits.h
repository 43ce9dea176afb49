#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace kvw::cli {

struct RankedLogit {
    int32_t id = 0;
    float logit = 0.0f;
};

// The k largest logits, largest first (ties: lower id first, so the order is reproducible).
std::vector<RankedLogit> top_logits(std::span<const float> logits, int k);

}  // namespace kvw::cli
