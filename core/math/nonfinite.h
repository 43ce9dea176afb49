#pragma once
#include "core/math/half.h"
#include "core/math/hd.h"

namespace kvw {

// A NaN or an infinity: every exponent bit set. Read from the bits, so no compiler flag that
// assumes finite maths can fold the test away. The finite check of a forward's new K and V
// where they are (Backend::count_nonfinite) counts with it on the host and in the CUDA body
// (kernels/bodies/elementwise.h) alike.
KVW_HD bool is_nonfinite(float x) { return (float_bits(x) & 0x7f800000u) == 0x7f800000u; }

}  // namespace kvw
