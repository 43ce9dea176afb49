#pragma once
#include <cmath>

#include "core/math/hd.h"
#include "core/math/rope_layout.h"

namespace kvw {

// Rotary position embedding. Pair i (i < head_dim/2) of a head vector is rotated by the angle
// pos · theta^(-2i/head_dim); the pairs are (2i, 2i+1) for RopeLayout::Interleaved and
// (i, i + head_dim/2) for RopeLayout::HalfSplit.
//
// The angle and its sine/cosine are computed in double: a float angle at position 4096 is off by
// ~2e-4 rad, which would make a re-rotated K row visibly differ from a directly rotated one.
// The rotation itself runs in float. The engine computes cos/sin once per position
// (rope_cos_sin) and applies them to every head of every layer (rope_apply); rope_rotate is the
// same arithmetic for a single vector.

KVW_HD double rope_angle(int pair, int head_dim, double pos, float theta) {
    return pos * pow(double(theta), -2.0 * pair / double(head_dim));
}

// Rotates pair `pair` of x[head_dim] by the angle whose cosine/sine are c/s.
KVW_HD void rope_rotate_pair(float* x, int pair, int head_dim, float c, float s,
                             RopeLayout layout) {
    const int a = layout == RopeLayout::Interleaved ? 2 * pair : pair;
    const int b = layout == RopeLayout::Interleaved ? 2 * pair + 1 : pair + head_dim / 2;
    const float x0 = x[a];
    const float x1 = x[b];
    x[a] = x0 * c - x1 * s;
    x[b] = x0 * s + x1 * c;
}

// cos_out[head_dim/2], sin_out[head_dim/2]: the rotation of each pair at position pos.
KVW_HD void rope_cos_sin(double pos, int head_dim, float theta, float* cos_out, float* sin_out) {
    for (int i = 0; i < head_dim / 2; ++i) {
        const double angle = rope_angle(i, head_dim, pos, theta);
        cos_out[i] = float(cos(angle));
        sin_out[i] = float(sin(angle));
    }
}

// x[head_dim] in place, with the table of rope_cos_sin.
KVW_HD void rope_apply(float* x, int head_dim, const float* cos_tab, const float* sin_tab,
                       RopeLayout layout) {
    for (int i = 0; i < head_dim / 2; ++i)
        rope_rotate_pair(x, i, head_dim, cos_tab[i], sin_tab[i], layout);
}

// x[head_dim] in place, rotated as at position pos.
KVW_HD void rope_rotate(float* x, int head_dim, double pos, float theta, RopeLayout layout) {
    for (int i = 0; i < head_dim / 2; ++i) {
        const double angle = rope_angle(i, head_dim, pos, theta);
        rope_rotate_pair(x, i, head_dim, float(cos(angle)), float(sin(angle)), layout);
    }
}

// Moves an already rotated head vector from position p to p + delta (what a K-shift does when
// cache rows are re-indexed): rotations compose, so this is a rotation by delta.
KVW_HD void rope_rerotate(float* x, int head_dim, double delta, float theta, RopeLayout layout) {
    rope_rotate(x, head_dim, delta, theta, layout);
}

// Undoes rope_rotate at position pos: the head vector as it was before RoPE (rotations by pos
// and -pos compose to the identity, up to float rounding). The SmartKV gate scores the
// un-rotated key, so its score does not depend on where a row sits (docs/ARCHITECTURE.md §12).
KVW_HD void rope_unrotate(float* x, int head_dim, double pos, float theta, RopeLayout layout) {
    rope_rotate(x, head_dim, -pos, theta, layout);
}

}  // namespace kvw
