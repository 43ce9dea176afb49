#pragma once
#include <cmath>

#include "core/math/hd.h"

namespace kvw {

// 1 / sqrt(mean of x² + eps), the squares summed in index order (on a device one thread sums
// a row: for_each_loaded).
KVW_HD float rmsnorm_inverse(const float* x, int n, float eps) {
    float sum_sq = 0.0f;
    for_each_loaded(
        0, n, [x](int i) { return x[i]; }, [&sum_sq](int, float v) { sum_sq += v * v; });
    return 1.0f / sqrtf(sum_sq / float(n) + eps);
}

// One element of the normalised row.
KVW_HD float rmsnorm_scaled(float x, float inverse, float weight) { return x * inverse * weight; }

// out[n] = x[n] / sqrt(mean(x²) + eps) * weight[n]. The sum of squares is accumulated in float,
// in index order, so every backend normalises a row identically. out may alias x.
KVW_HD void rmsnorm(const float* x, const float* weight, int n, float eps, float* out) {
    const float inv = rmsnorm_inverse(x, n, eps);
    for (int i = 0; i < n; ++i) out[i] = rmsnorm_scaled(x[i], inv, weight[i]);
}

}  // namespace kvw
