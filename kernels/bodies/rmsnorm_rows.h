#pragma once
// RMSNorm of each row (core/math/rmsnorm.h) in two passes: one thread per row sums its squares
// alone in index order (rmsnorm_inverse), then one thread per element scales it: the CPU's
// arithmetic exactly, without one thread writing a whole row. Also the per-head Q/K norm (rows
// = items · heads, dim = head_dim), whose weight every head shares.

#include "core/math/hd.h"
#include "core/math/rmsnorm.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

struct RmsNormCall {
    const float* x = nullptr;  // [rows][dim]
    const float* weight = nullptr;
    int rows = 0, dim = 0;
    float eps = 0.0f;
    float* out = nullptr;      // [rows][dim]; may be x
    float* inverse = nullptr;  // scratch: [rows]
};

struct RmsNormInverse {
    RmsNormCall c;

    Launch shape() const { return cover(size_t(c.rows), 64); }

    KVW_HD void operator()(const At& at) const {
        const size_t r = at.x();
        if (r >= size_t(c.rows)) return;
        c.inverse[r] = rmsnorm_inverse(c.x + r * size_t(c.dim), c.dim, c.eps);
    }
};

struct RmsNormScale {
    RmsNormCall c;

    Launch shape() const { return cover(size_t(c.rows) * size_t(c.dim)); }

    KVW_HD void operator()(const At& at) const {
        const size_t t = at.x();
        if (t >= size_t(c.rows) * size_t(c.dim)) return;
        const size_t r = t / size_t(c.dim), i = t % size_t(c.dim);
        c.out[t] = rmsnorm_scaled(c.x[t], c.inverse[r], c.weight[i]);
    }
};

// The passes in order, each handed to run (a device launch, or host_launch in the tests).
template <class Run>
void rmsnorm_passes(const RmsNormCall& c, Run&& run) {
    if (c.rows <= 0 || c.dim <= 0) return;
    run(RmsNormInverse{c});
    run(RmsNormScale{c});
}

}  // namespace kvw::kern
