#pragma once
#include <cmath>

#include "core/math/hd.h"

namespace kvw {

// x[n] in place: x[i] = exp(x[i] - max) / Σ exp(x[j] - max). The max subtraction keeps exp from
// overflowing; the sum runs in index order in float.
KVW_HD void softmax(float* x, int n) {
    float max = x[0];
    for (int i = 1; i < n; ++i) max = x[i] > max ? x[i] : max;
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) {
        x[i] = expf(x[i] - max);
        sum += x[i];
    }
    const float inv = 1.0f / sum;
    for (int i = 0; i < n; ++i) x[i] *= inv;
}

}  // namespace kvw
