#pragma once
#include <string_view>

#include "core/backend/backend.h"
#include "core/backend/thread_pool.h"

namespace kvw {

// The numeric reference backend. Rows of the weight are split across the pool's threads in
// blocks of eight; each output element is computed by one kernel call whose summation order is
// fixed (core/backend/matmul_kernels.h), so results do not depend on the thread count or on the
// number of tokens multiplied together.
class CpuBackend final : public Backend {
public:
    explicit CpuBackend(int threads = 0);

    std::string_view name() const override { return "cpu"; }
    void matmul(const WeightTensor& w, const float* x, int n, float* y) override;

    // "avx2" (AVX2 + FMA + F16C, chosen when the CPU has them) or "scalar".
    std::string_view kernel() const { return kernel_name_; }
    int threads() const { return pool_.size(); }

private:
    using RowsKernel = void (*)(const WeightTensor&, const float*, int, float*, int64_t, int64_t);

    ThreadPool pool_;
    RowsKernel kernel_;
    std::string_view kernel_name_;
};

}  // namespace kvw
