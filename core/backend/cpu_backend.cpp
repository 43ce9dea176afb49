#include "core/backend/cpu_backend.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/backend/matmul_kernels.h"

namespace kvw {

namespace {

constexpr int64_t kRowBlock = 8;

const cpu::RowsKernel& choose_kernel(std::string_view wanted) {
    for (const cpu::RowsKernel& k : cpu::rows_kernels()) {
        if (!wanted.empty() && k.name != wanted) continue;
        if (k.cpu_has()) return k;
        if (!wanted.empty())
            throw std::invalid_argument("cpu backend: this CPU cannot run the " +
                                        std::string(wanted) + " kernel");
    }
    throw std::invalid_argument("cpu backend: no kernel named " + std::string(wanted));
}

}  // namespace

CpuBackend::CpuBackend(int threads, std::string_view kernel) : pool_(threads) {
    const cpu::RowsKernel& k = choose_kernel(kernel);
    kernel_ = k.fn;
    kernel_name_ = k.name;
    name_ = kernel.empty() ? "cpu" : "cpu:" + std::string(k.name);
}

void CpuBackend::matmul(const WeightTensor& w, const float* x, int n, float* y) {
    if (n <= 0 || w.rows == 0) return;
    const int64_t blocks = (w.rows + kRowBlock - 1) / kRowBlock;
    pool_.parallel_for(blocks, [&](int64_t begin, int64_t end) {
        kernel_(w, x, n, y, begin * kRowBlock, std::min(w.rows, end * kRowBlock));
    });
}

std::unique_ptr<Backend> make_cpu_backend(int threads, std::string_view kernel) {
    return std::make_unique<CpuBackend>(threads, kernel);
}

}  // namespace kvw
