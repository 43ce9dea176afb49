#pragma once
// exp(x) for x ≤ 0, the exponential of a softmax's x − max, one float at a time: the scalar form
// of the CPU attention kernels' exp_nonpositive (core/backend/cpu/attention_tiles.inc), with its
// constants and its order of operations, each multiply-add rounded twice as the scalar CPU
// kernel rounds it. The CUDA attention's softmax (kernels/bodies/attention.h) calls it, so a
// device, compiled without FMA contraction, gives the scalar CPU kernel's weights bit for bit.
#include <math.h>

#include <cstdint>

#include "core/math/half.h"
#include "core/math/hd.h"

namespace kvw {

// Cody–Waite reduction x = n·ln 2 + r, |r| ≤ ln 2 / 2 (ln 2 in two parts, so n·ln2_hi is exact),
// and Cephes' degree-5 polynomial for e^r, within about 2 ulp of exp. Below ln(FLT_MIN) the
// result is 0 (exp would be a denormal there).
struct SoftmaxExp {
    static constexpr float min = -87.33654f;
    static constexpr float log2e = 1.44269504088896341f;
    static constexpr float ln2_hi = -0.693359375f;
    static constexpr float ln2_lo = 2.12194440e-4f;
    static constexpr float c5 = 1.9875691500e-4f, c4 = 1.3981999507e-3f, c3 = 8.3334519073e-3f,
                           c2 = 4.1665795894e-2f, c1 = 1.6666665459e-1f, c0 = 5.0000001201e-1f;
};

// NaN stays NaN.
KVW_HD float exp_nonpositive(float x) {
    const float xc = SoftmaxExp::min > x ? SoftmaxExp::min : x;
    const float n = floorf(xc * SoftmaxExp::log2e + 0.5f);
    float r = n * SoftmaxExp::ln2_hi + xc;
    r = n * SoftmaxExp::ln2_lo + r;
    float poly = SoftmaxExp::c5 * r + SoftmaxExp::c4;
    poly = poly * r + SoftmaxExp::c3;
    poly = poly * r + SoftmaxExp::c2;
    poly = poly * r + SoftmaxExp::c1;
    poly = poly * r + SoftmaxExp::c0;
    const float e = (poly * (r * r) + r) + 1.0f;
    if (x < SoftmaxExp::min) return 0.0f;
    const float two_n = n != n ? n : bits_float(uint32_t(int(n) + 127) << 23);
    return e * two_n;
}

}  // namespace kvw
