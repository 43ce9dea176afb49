#pragma once
#include <algorithm>
#include <span>
#include <vector>

namespace kvw {

// How bright a cache row is: high when recent attention reached it, fading otherwise
// (ARCHITECTURE §2.1, Steps 2-3). Every tick:  b' = min(max, b * decay + boost * mass).
// The session passes attention_share() of the engine's mass, so with the defaults
// (boost = max * (1 - decay)) a row attended exactly at the uniform rate holds full
// brightness, a row attended less fades, and the context length does not change the scale.
struct BrightnessParams {
    float decay = 0.9f;      // kept fraction per tick, in [0, 1]
    float boost = 25.5f;     // brightness gained per unit of mass
    float initial = 255.0f;  // brightness of a row when it enters the cache
    float max = 255.0f;      // ceiling
};

// One row's brightness after a tick, given the attention share it received.
inline float next_brightness(float brightness, float share, const BrightnessParams& params) {
    return std::min(params.max, brightness * params.decay + params.boost * share);
}

// The attention mass of a layer's rows (ForwardOutput::attention_mass: summed over heads and
// queries) relative to a uniform share: mass * rows / total, so that 1 means "as much as an
// average row". All zeros stay zeros.
std::vector<float> attention_share(std::span<const float> mass);

}  // namespace kvw
