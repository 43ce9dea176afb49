#include "core/policy/brightness.h"

#include <algorithm>
#include <string>

#include "core/policy/policy_error.h"

namespace kvw {

std::vector<float> updated_brightness(std::span<const float> brightness,
                                      std::span<const float> attention_mass,
                                      const BrightnessParams& params) {
    if (brightness.size() != attention_mass.size())
        throw PolicyInputError("brightness has " + std::to_string(brightness.size()) +
                               " rows but attention mass has " +
                               std::to_string(attention_mass.size()));
    std::vector<float> out(brightness.size());
    for (size_t r = 0; r < out.size(); ++r)
        out[r] =
            std::min(params.max, brightness[r] * params.decay + params.boost * attention_mass[r]);
    return out;
}

std::vector<std::vector<float>> updated_brightness(
    const std::vector<std::vector<float>>& brightness,
    const std::vector<std::vector<float>>& attention_mass, const BrightnessParams& params) {
    if (brightness.size() != attention_mass.size())
        throw PolicyInputError("brightness has " + std::to_string(brightness.size()) +
                               " layers but attention mass has " +
                               std::to_string(attention_mass.size()));
    std::vector<std::vector<float>> out;
    out.reserve(brightness.size());
    for (size_t l = 0; l < brightness.size(); ++l) {
        try {
            out.push_back(updated_brightness(brightness[l], attention_mass[l], params));
        } catch (const PolicyInputError& e) {
            throw PolicyInputError("layer " + std::to_string(l) + ": " + e.what());
        }
    }
    return out;
}

std::vector<float> attention_share(std::span<const float> mass) {
    double total = 0;
    for (float m : mass) total += m;
    std::vector<float> share(mass.size(), 0.0f);
    if (total <= 0) return share;
    const double scale = double(mass.size()) / total;
    for (size_t r = 0; r < mass.size(); ++r) share[r] = float(mass[r] * scale);
    return share;
}

}  // namespace kvw
