#pragma once
#include <span>
#include <vector>

namespace kvw {

// How bright a cache row is: high when recent attention reached it, fading otherwise
// (ARCHITECTURE §2.1, Steps 2-3). Every tick:  b' = min(max, b * decay + boost * mass),
// where mass is the attention weight the row received this tick (summed over heads and
// queries, as ForwardOutput::attention_mass gives it).
struct BrightnessParams {
    float decay = 0.95f;     // kept fraction per tick, in [0, 1]
    float boost = 255.0f;    // brightness gained per unit of attention mass
    float initial = 255.0f;  // brightness of a row when it enters the cache
    float max = 255.0f;      // ceiling
};

// One layer. Throws PolicyInputError when the sizes differ.
std::vector<float> updated_brightness(std::span<const float> brightness,
                                      std::span<const float> attention_mass,
                                      const BrightnessParams& params);

// Every layer: [layer][row]. Throws PolicyInputError (naming the layer) when the layer counts
// or a layer's row counts differ.
std::vector<std::vector<float>> updated_brightness(
    const std::vector<std::vector<float>>& brightness,
    const std::vector<std::vector<float>>& attention_mass, const BrightnessParams& params);

}  // namespace kvw
