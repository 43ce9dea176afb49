#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "core/model/weights.h"

namespace kvw {

// The compute a forward pass spends nearly all its time in. The engine (core/engine) owns the
// transformer logic and calls a Backend for the matrix products; the row maths (RMSNorm, RoPE,
// softmax, SwiGLU) live in core/math headers that both backends share.
class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string_view name() const = 0;

    // y[n][w.rows] = x[n][w.cols] · wᵀ, float32 accumulation in a fixed order, so the result
    // does not depend on the number of threads.
    virtual void matmul(const WeightTensor& w, const float* x, int n, float* y) = 0;
};

// The CPU backend: the numeric reference. threads == 0 uses every core. `kernel` pins one of
// its matmul kernels ("avx512", "avx2", "scalar"; std::invalid_argument when unknown or when this
// CPU lacks it); empty picks the fastest this CPU runs.
std::unique_ptr<Backend> make_cpu_backend(int threads = 0, std::string_view kernel = {});

}  // namespace kvw
