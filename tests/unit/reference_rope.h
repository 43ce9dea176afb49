#pragma once
// Plain float64 RoPE for the reference computations of the tests, written independently of
// core/math/rope.h (which is the code under test).
#include <cmath>

#include "core/model/model_config.h"

namespace kvw::test {

inline void reference_rope(double* head, int d, double pos, double theta, RopeLayout layout) {
    for (int i = 0; i < d / 2; ++i) {
        const double angle = pos * std::pow(theta, -2.0 * i / d);
        const int a = layout == RopeLayout::Interleaved ? 2 * i : i;
        const int b = layout == RopeLayout::Interleaved ? 2 * i + 1 : i + d / 2;
        const double x0 = head[a], x1 = head[b];
        head[a] = x0 * std::cos(angle) - x1 * std::sin(angle);
        head[b] = x0 * std::sin(angle) + x1 * std::cos(angle);
    }
}

}  // namespace kvw::test
