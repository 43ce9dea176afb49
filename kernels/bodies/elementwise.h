#pragma once
// The element-wise steps of a forward, one thread per element: a bias added to every row, the
// residual add and the SwiGLU gate (core/math/swiglu.h).
#include <cstddef>

#include "core/math/hd.h"
#include "core/math/swiglu.h"
#include "kernels/launch/grid.h"

namespace kvw::kern {

// x[r][d] += bias[d].
struct AddBiasRows {
    float* x = nullptr;
    const float* bias = nullptr;
    int rows = 0, dim = 0;

    Launch shape() const { return cover(size_t(rows) * size_t(dim)); }

    KVW_HD void operator()(const At& at) const {
        const size_t i = at.x();
        if (i < size_t(rows) * size_t(dim)) x[i] += bias[i % size_t(dim)];
    }
};

// x[i] += y[i].
struct AddInto {
    float* x = nullptr;
    const float* y = nullptr;
    size_t count = 0;

    Launch shape() const { return cover(count); }

    KVW_HD void operator()(const At& at) const {
        const size_t i = at.x();
        if (i < count) x[i] += y[i];
    }
};

// gate[i] = silu(gate[i]) · up[i].
struct SwigluInto {
    float* gate = nullptr;
    const float* up = nullptr;
    size_t count = 0;

    Launch shape() const { return cover(count); }

    KVW_HD void operator()(const At& at) const {
        const size_t i = at.x();
        if (i < count) gate[i] = silu(gate[i]) * up[i];
    }
};

inline AddBiasRows add_bias_rows_body(float* x, const float* bias, int rows, int dim) {
    return AddBiasRows{x, bias, rows, dim};
}

inline AddInto add_into_body(float* x, const float* y, size_t count) {
    return AddInto{x, y, count};
}

inline SwigluInto swiglu_into_body(float* gate, const float* up, size_t count) {
    return SwigluInto{gate, up, count};
}

}  // namespace kvw::kern
