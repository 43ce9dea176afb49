#include "core/backend/cpu_backend.h"

#include <algorithm>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "core/backend/matmul_kernels.h"

namespace kvw {

namespace {

constexpr int64_t kRowBlock = 8;

bool cpu_has_avx2_fma_f16c() {
#if defined(__x86_64__)
    __builtin_cpu_init();
    // clang before 15 does not know "f16c" in __builtin_cpu_supports: ask CPUID leaf 1 (the
    // OS saves the AVX state F16C needs whenever the avx2 check passes).
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c;
#else
    return false;
#endif
}

}  // namespace

CpuBackend::CpuBackend(int threads) : pool_(threads) {
#if defined(__x86_64__)
    if (cpu_has_avx2_fma_f16c()) {
        kernel_ = cpu::matmul_rows_avx2;
        kernel_name_ = "avx2";
        return;
    }
#endif
    kernel_ = cpu::matmul_rows_scalar;
    kernel_name_ = "scalar";
}

void CpuBackend::matmul(const WeightTensor& w, const float* x, int n, float* y) {
    if (n <= 0 || w.rows == 0) return;
    const int64_t blocks = (w.rows + kRowBlock - 1) / kRowBlock;
    pool_.parallel_for(blocks, [&](int64_t begin, int64_t end) {
        kernel_(w, x, n, y, begin * kRowBlock, std::min(w.rows, end * kRowBlock));
    });
}

std::unique_ptr<Backend> make_cpu_backend(int threads) {
    return std::make_unique<CpuBackend>(threads);
}

}  // namespace kvw
