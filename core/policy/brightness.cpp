#include "core/policy/brightness.h"

#include <algorithm>

namespace kvw {

std::vector<float> attention_share(std::span<const float> mass) {
    double total = 0;
    for (float m : mass) total += m;
    std::vector<float> share(mass.size(), 0.0f);
    const std::optional<double> factor = share_factor(total, mass.size());
    if (!factor) return share;
    for (size_t r = 0; r < mass.size(); ++r) share[r] = float(mass[r] * *factor);
    return share;
}

std::vector<double> mass_totals(const std::vector<std::vector<float>>& mass) {
    // One sum is a chain of dependent adds (about 4 cycles each: 3 ms a tick at 22 layers x
    // 100,000 rows); four layers' chains at once overlap, each still added in its own order.
    std::vector<double> totals(mass.size(), 0.0);
    size_t l = 0;
    for (; l + 4 <= mass.size(); l += 4) {
        const std::vector<float>* m = &mass[l];
        const size_t common = std::min({m[0].size(), m[1].size(), m[2].size(), m[3].size()});
        double t0 = 0, t1 = 0, t2 = 0, t3 = 0;
        for (size_t r = 0; r < common; ++r) {
            t0 += m[0][r];
            t1 += m[1][r];
            t2 += m[2][r];
            t3 += m[3][r];
        }
        double* t[4] = {&t0, &t1, &t2, &t3};
        for (int i = 0; i < 4; ++i) {
            for (size_t r = common; r < m[i].size(); ++r) *t[i] += m[i][r];
            totals[l + size_t(i)] = *t[i];
        }
    }
    for (; l < mass.size(); ++l)
        for (float v : mass[l]) totals[l] += v;
    return totals;
}

}  // namespace kvw
