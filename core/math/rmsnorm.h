#pragma once
#include <cmath>

#include "core/math/hd.h"

namespace kvw {

// out[n] = x[n] / sqrt(mean(x²) + eps) * weight[n]. The sum of squares is accumulated in float,
// in index order, so every backend normalises a row identically. out may alias x.
KVW_HD void rmsnorm(const float* x, const float* weight, int n, float eps, float* out) {
    float sum_sq = 0.0f;
    for (int i = 0; i < n; ++i) sum_sq += x[i] * x[i];
    const float inv = 1.0f / sqrtf(sum_sq / float(n) + eps);
    for (int i = 0; i < n; ++i) out[i] = x[i] * inv * weight[i];
}

}  // namespace kvw
