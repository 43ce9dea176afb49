#include "core/backend/cpu/cpu_backend.h"

#include <string>

#include "core/backend/cpu/kernel_choice.h"
#include "core/backend/cpu/matmul_kernels.h"
#include "core/backend/cpu/row_blocks.h"

namespace kvw {

CpuBackend::CpuBackend(int threads, std::string_view kernel) : HostBackend(threads) {
    const cpu::RowsKernel& k = cpu::choose_kernel(cpu::rows_kernels(), kernel, "cpu backend");
    kernel_ = k.fn;
    kernel_name_ = k.name;
    name_ = kernel.empty() ? "cpu" : "cpu:" + std::string(k.name);
}

void CpuBackend::matmul(const WeightTensor& w, const float* x, int n, float* y) {
    if (n <= 0 || w.rows == 0) return;
    cpu::for_row_blocks(pool_, w.rows, n, cpu::kDecodeClaimBlocks,
                        [&](int64_t begin, int64_t end) { kernel_(w, x, n, y, begin, end); });
}

std::unique_ptr<Backend> make_cpu_backend(int threads, std::string_view kernel) {
    return std::make_unique<CpuBackend>(threads, kernel);
}

}  // namespace kvw
