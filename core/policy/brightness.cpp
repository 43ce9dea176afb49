#include "core/policy/brightness.h"

namespace kvw {

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
