#pragma once
// RMSNorm of each row (core/math/rmsnorm.h), one thread per row summing its squares alone in
// index order: the CPU's arithmetic exactly. Also the per-head Q/K norm (rows = items · heads,
// dim = head_dim), whose weight every head shares.
#include <cstddef>

#include "core/math/hd.h"
#include "core/math/rmsnorm.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct RmsNormRows {
    const float* x = nullptr;  // [rows][dim]
    const float* weight = nullptr;
    int rows = 0, dim = 0;
    float eps = 0.0f;
    float* out = nullptr;  // [rows][dim]; may be x

    Launch shape() const { return cover(size_t(rows), 64); }

    KVW_HD void operator()(const At& at) const {
        const size_t r = at.x();
        if (r >= size_t(rows)) return;
        rmsnorm(x + r * size_t(dim), weight, dim, eps, out + r * size_t(dim));
    }
};

inline RmsNormRows rmsnorm_rows_body(const float* x, const float* weight, int rows, int dim,
                                     float eps, float* out) {
    return RmsNormRows{x, weight, rows, dim, eps, out};
}

}  // namespace kvw::kern
