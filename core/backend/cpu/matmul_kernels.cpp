#include "core/backend/cpu/matmul_kernels.h"

#include "core/backend/cpu/cpu_features.h"

namespace kvw::cpu {

namespace {

bool always() { return true; }

constexpr RowsKernel kKernels[] = {
#if defined(__x86_64__)
    {"avx512", cpu_has_avx512, matmul_rows_avx512},
    {"avx2", cpu_has_avx2, matmul_rows_avx2},
#endif
    {"scalar", always, matmul_rows_scalar},
};

}  // namespace

std::span<const RowsKernel> rows_kernels() { return kKernels; }

}  // namespace kvw::cpu
