#include "core/engine/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace kvw {

namespace {

// Parameters come from flags, trace headers and the window: a bad one is named here rather
// than quietly sampling something else (a negative top_k would mean "off").
void check(const SamplingParams& p) {
    if (!(p.temperature >= 0.0f && p.temperature <= kMaxTemperature))
        throw std::invalid_argument("sampling: temperature " + std::to_string(p.temperature) +
                                    " must be from 0 to " + std::to_string(kMaxTemperature));
    if (p.top_k < 0)
        throw std::invalid_argument("sampling: top_k " + std::to_string(p.top_k) +
                                    " must be >= 0 (0: off)");
    if (!(p.top_p > 0.0f && p.top_p <= 1.0f))
        throw std::invalid_argument("sampling: top_p " + std::to_string(p.top_p) +
                                    " must be in (0, 1]");
}

}  // namespace

Sampler::Sampler(SamplingParams params) : params_(params), state_(params.seed) { check(params_); }

uint64_t Sampler::next_u64() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double Sampler::uniform() { return double(next_u64() >> 11) * 0x1.0p-53; }

int32_t Sampler::sample(std::span<const float> logits) {
    if (logits.empty()) throw std::invalid_argument("sample: no logits");
    const int32_t vocab = int32_t(logits.size());
    if (params_.temperature <= 0.0f)
        return int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());

    std::vector<int32_t> ids(static_cast<size_t>(vocab));
    std::iota(ids.begin(), ids.end(), 0);
    const auto more_likely = [&](int32_t a, int32_t b) {
        return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
    };
    const bool use_top_p = params_.top_p < 1.0f;
    if (params_.top_k > 0 && params_.top_k < vocab) {
        std::partial_sort(ids.begin(), ids.begin() + params_.top_k, ids.end(), more_likely);
        ids.resize(size_t(params_.top_k));
    } else if (use_top_p) {
        std::sort(ids.begin(), ids.end(), more_likely);
    }

    float max_logit = logits[ids[0]];
    for (int32_t id : ids) max_logit = std::max(max_logit, logits[id]);
    std::vector<double> weight(ids.size());
    double total = 0.0;
    for (size_t i = 0; i < ids.size(); ++i) {
        weight[i] = std::exp(double(logits[ids[i]] - max_logit) / double(params_.temperature));
        total += weight[i];
    }
    if (use_top_p) {  // ids are sorted most likely first here
        const double target = double(params_.top_p) * total;
        double kept = 0.0;
        size_t n = 0;
        while (n < ids.size() && (n == 0 || kept < target)) kept += weight[n++];
        ids.resize(n);
        weight.resize(n);
        total = kept;
    }

    const double u = uniform() * total;
    double cumulative = 0.0;
    for (size_t i = 0; i < ids.size(); ++i) {
        cumulative += weight[i];
        if (u < cumulative) return ids[i];
    }
    return ids.back();  // u within rounding of the total
}

}  // namespace kvw
