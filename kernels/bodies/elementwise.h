#pragma once
// The element-wise steps of a forward, one thread per element: a bias added to every row, the
// residual add and the SwiGLU gate (core/math/swiglu.h); and the finite check of its new K and
// V, one thread per piece (core/math/nonfinite.h).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/math/hd.h"
#include "core/math/nonfinite.h"
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

// x holds `rows` rows of `width` values, `stride` apart; its values are numbered row after
// row, and counts[p] = the NaN and infinite ones among values [p · piece, (p + 1) · piece). The
// host sums the counts (integers: any order gives the same total).
struct CountNonfinite {
    const float* x = nullptr;
    size_t rows = 0, width = 0, stride = 0, piece = 0;
    uint32_t* counts = nullptr;  // [pieces()]

    KVW_HD size_t pieces() const { return (rows * width + piece - 1) / piece; }
    Launch shape() const { return cover(pieces()); }

    KVW_HD void operator()(const At& at) const {
        const size_t p = at.x();
        if (p >= pieces()) return;
        const size_t end = (p + 1) * piece < rows * width ? (p + 1) * piece : rows * width;
        uint32_t n = 0;
        for (size_t e = p * piece; e < end; ++e)
            n += is_nonfinite(x[e / width * stride + e % width]) ? 1 : 0;
        counts[p] = n;
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

// Pieces of 4,096 values a thread by default.
inline CountNonfinite count_nonfinite_body(const float* x, size_t rows, size_t width, size_t stride,
                                           uint32_t* counts, size_t piece = 4096) {
    if (width > stride && rows > 1)
        throw std::invalid_argument("count_nonfinite: rows of " + std::to_string(width) +
                                    " values " + std::to_string(stride) + " apart overlap");
    return CountNonfinite{x, rows, width == 0 ? 1 : width, stride, piece == 0 ? 1 : piece, counts};
}

}  // namespace kvw::kern
