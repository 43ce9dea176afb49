#pragma once
#include <cmath>

#include "core/math/hd.h"

namespace kvw {

KVW_HD float silu(float x) { return x / (1.0f + expf(-x)); }

// out[n] = silu(gate[n]) * up[n], the gated activation of a Llama feed-forward block.
// out may alias gate or up.
KVW_HD void swiglu(const float* gate, const float* up, int n, float* out) {
    for (int i = 0; i < n; ++i) out[i] = silu(gate[i]) * up[i];
}

}  // namespace kvw
