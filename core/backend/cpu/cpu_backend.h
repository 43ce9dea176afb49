#pragma once
#include <string>
#include <string_view>

#include "core/backend/cpu/host_backend.h"

namespace kvw {

// The numeric reference backend. Rows of the weight are split across the pool's threads in
// blocks of eight; each output element is computed by one kernel call whose summation order is
// fixed (core/backend/cpu/matmul_kernels.h), so results do not depend on the thread count or on the
// number of tokens multiplied together.
class CpuBackend final : public HostBackend {
public:
    // `kernel` names one of cpu::rows_kernels() (std::invalid_argument when unknown or when
    // this CPU lacks it); empty picks the fastest this CPU runs.
    explicit CpuBackend(int threads = 0, std::string_view kernel = {});

    // "cpu", or "cpu:KERNEL" when a kernel was pinned (core/backend/backend_registry.h).
    std::string_view name() const override { return name_; }
    void matmul(const WeightTensor& w, const float* x, int n, float* y) override;

    // "avx512", "avx2" or "scalar" (core/backend/cpu/matmul_kernels.h).
    std::string_view kernel() const { return kernel_name_; }

private:
    void (*kernel_)(const WeightTensor&, const float*, int, float*, int64_t, int64_t);
    std::string_view kernel_name_;
    std::string name_;
};

}  // namespace kvw
