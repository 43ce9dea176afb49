#pragma once
#include <cmath>

#include "core/math/hd.h"
#include "core/math/rope_layout.h"

namespace kvw {

// Rotary position embedding. Pair i (i < head_dim/2) of a head vector is rotated by the angle
// pos · theta^(-2i/head_dim); the pairs are (2i, 2i+1) for RopeLayout::Interleaved and
// (i, i + head_dim/2) for RopeLayout::HalfSplit. Scaled RoPE (docs/ARCHITECTURE.md §2.1) changes
// the frequency of each pair: linear scaling multiplies every frequency by pos_scale (1/factor),
// llama3 scaling divides pair i's frequency by freq_divisors[i]. The angle stays linear in pos,
// so rotations still compose (rope_rerotate).
//
// The angle and its sine/cosine are computed in double: a float angle at position 4096 is off by
// ~2e-4 rad, which would make a re-rotated K row visibly differ from a directly rotated one.
// The rotation itself runs in float. The engine computes cos/sin once per position
// (rope_cos_sin) and applies them to every head of every layer (rope_apply); rope_rotate is the
// same arithmetic for a single vector.

// How a model rotates: a plain view (freq_divisors points into the model's config), so the CUDA
// kernels can take it by value. ModelConfig::rope() makes one.
struct RopeParams {
    float theta = 10000.0f;
    RopeLayout layout = RopeLayout::Interleaved;
    double pos_scale = 1.0;                // linear scaling: 1 / factor
    const float* freq_divisors = nullptr;  // [head_dim/2] or null: llama3 scaling
};

// The frequency of pair `pair`. Unscaled, exactly theta^(-2·pair/head_dim) as before scaling
// existed, so unscaled models keep their bits.
KVW_HD double rope_frequency(int pair, int head_dim, const RopeParams& p) {
    double f = pow(double(p.theta), -2.0 * pair / double(head_dim));
    if (p.freq_divisors) f /= double(p.freq_divisors[pair]);
    if (p.pos_scale != 1.0) f *= p.pos_scale;
    return f;
}

KVW_HD double rope_angle(int pair, int head_dim, double pos, const RopeParams& p) {
    return pos * rope_frequency(pair, head_dim, p);
}

KVW_HD double rope_angle(int pair, int head_dim, double pos, float theta) {
    return rope_angle(pair, head_dim, pos, RopeParams{theta});
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
KVW_HD void rope_cos_sin(double pos, int head_dim, const RopeParams& p, float* cos_out,
                         float* sin_out) {
    for (int i = 0; i < head_dim / 2; ++i) {
        const double angle = rope_angle(i, head_dim, pos, p);
        cos_out[i] = float(cos(angle));
        sin_out[i] = float(sin(angle));
    }
}

KVW_HD void rope_cos_sin(double pos, int head_dim, float theta, float* cos_out, float* sin_out) {
    rope_cos_sin(pos, head_dim, RopeParams{theta}, cos_out, sin_out);
}

// x[head_dim] in place, with the table of rope_cos_sin.
KVW_HD void rope_apply(float* x, int head_dim, const float* cos_tab, const float* sin_tab,
                       RopeLayout layout) {
    for (int i = 0; i < head_dim / 2; ++i)
        rope_rotate_pair(x, i, head_dim, cos_tab[i], sin_tab[i], layout);
}

// x[head_dim] in place, rotated as at position pos.
KVW_HD void rope_rotate(float* x, int head_dim, double pos, const RopeParams& p) {
    for (int i = 0; i < head_dim / 2; ++i) {
        const double angle = rope_angle(i, head_dim, pos, p);
        rope_rotate_pair(x, i, head_dim, float(cos(angle)), float(sin(angle)), p.layout);
    }
}

KVW_HD void rope_rotate(float* x, int head_dim, double pos, float theta, RopeLayout layout) {
    rope_rotate(x, head_dim, pos, RopeParams{theta, layout});
}

// Moves an already rotated head vector from position p to p + delta (what a K-shift does when
// cache rows are re-indexed): rotations compose, so this is a rotation by delta.
KVW_HD void rope_rerotate(float* x, int head_dim, double delta, const RopeParams& p) {
    rope_rotate(x, head_dim, delta, p);
}

KVW_HD void rope_rerotate(float* x, int head_dim, double delta, float theta, RopeLayout layout) {
    rope_rerotate(x, head_dim, delta, RopeParams{theta, layout});
}

// Undoes rope_rotate at position pos: the head vector as it was before RoPE (rotations by pos
// and -pos compose to the identity, up to float rounding). The SmartKV gate scores the
// un-rotated key, so its score does not depend on where a row sits (docs/ARCHITECTURE.md §12).
KVW_HD void rope_unrotate(float* x, int head_dim, double pos, const RopeParams& p) {
    rope_rotate(x, head_dim, -pos, p);
}

KVW_HD void rope_unrotate(float* x, int head_dim, double pos, float theta, RopeLayout layout) {
    rope_unrotate(x, head_dim, pos, RopeParams{theta, layout});
}

// llama3 scaling (transformers' _compute_llama3_parameters): what pair `pair`'s frequency is
// divided by. Wavelengths shorter than original_context / high_freq_factor keep their
// frequency, those longer than original_context / low_freq_factor are divided by `factor`, and
// those between blend the two by where original_context / wavelength lies between the factors.
KVW_HD double llama3_freq_divisor(int pair, int head_dim, float theta, double factor,
                                  double low_freq_factor, double high_freq_factor,
                                  double original_context) {
    const double pi = 3.14159265358979323846;
    const double freq = pow(double(theta), -2.0 * pair / double(head_dim));
    const double wavelen = 2.0 * pi / freq;
    if (wavelen < original_context / high_freq_factor) return 1.0;
    if (wavelen > original_context / low_freq_factor) return factor;
    const double smooth =
        (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
    return 1.0 / ((1.0 - smooth) / factor + smooth);
}

}  // namespace kvw
