#pragma once
#include <algorithm>
#include <cstddef>
#include <optional>
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

// What attention_share multiplies a layer's mass by, given the layer's total (mass_totals) and
// its row count: a row's share is float(mass * factor). None when the total is not positive:
// then every share is 0.
inline std::optional<double> share_factor(double total, size_t rows) {
    if (total <= 0) return std::nullopt;
    return double(rows) / total;
}

// Each layer's total mass, summed in row order in double, as attention_share sums it: the
// shares, and so the brightness that traces hash, stay the same to the bit.
std::vector<double> mass_totals(const std::vector<std::vector<float>>& mass);

}  // namespace kvw
