#include "core/backend/cpu/fast_kernels.h"

#include "core/backend/cpu/cpu_features.h"

namespace kvw::cpu {

namespace {

#if defined(__x86_64__)
constexpr FastKernel kKernels[] = {
    {"amx", cpu_has_amx, fast_rows_amx, "avx512fp16", Bf16Sums::Tiles},
    {"vnni-bf16", cpu_prefers_vdpbf16ps, fast_rows_vnni_bf16, "avx512"},
    {"vnni", cpu_has_avx512_vnni, fast_rows_vnni, "avx512"},
    {"avx-vnni", cpu_has_avx_vnni, fast_rows_avx_vnni, "avx2"},
    {"avx2", cpu_has_avx2, fast_rows_avx2, "avx2"},
};
#endif

}  // namespace

std::span<const FastKernel> fast_kernels() {
#if defined(__x86_64__)
    return kKernels;
#else
    return {};
#endif
}

}  // namespace kvw::cpu
