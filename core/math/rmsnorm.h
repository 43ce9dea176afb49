#pragma once
#include <cmath>

#include "core/math/hd.h"

namespace kvw {

// 1 / sqrt(mean of x² + eps), the squares summed in index order (read kHdLoadBatch at a time:
// on a device one thread sums a row).
KVW_HD float rmsnorm_inverse(const float* x, int n, float eps) {
    float sum_sq = 0.0f;
    int i = 0;
    for (; i + kHdLoadBatch <= n; i += kHdLoadBatch) {
        float v[kHdLoadBatch];
        for (int k = 0; k < kHdLoadBatch; ++k) v[k] = x[i + k];
        for (int k = 0; k < kHdLoadBatch; ++k) sum_sq += v[k] * v[k];
    }
    for (; i < n; ++i) sum_sq += x[i] * x[i];
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
