#pragma once
// Shared by the GPU parity tests (test_cuda_forward, test_cuda_tick_stream): the normalised mean
// squared error Σ(got − want)² / Σwant², as ggml's test-backend-ops measures it.
#include <cmath>
#include <vector>

namespace kvw::test {

// Infinite when the sizes differ, so that a bound then fails.
inline double nmse(const std::vector<float>& got, const std::vector<float>& want) {
    if (got.size() != want.size()) return INFINITY;
    double err = 0.0, norm = 0.0;
    for (size_t i = 0; i < want.size(); ++i) {
        const double d = double(got[i]) - double(want[i]);
        err += d * d;
        norm += double(want[i]) * double(want[i]);
    }
    return norm > 0.0 ? err / norm : err;
}

}  // namespace kvw::test
