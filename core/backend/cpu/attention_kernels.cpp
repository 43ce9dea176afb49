#include "core/backend/cpu/attention_kernels.h"

#include "core/backend/cpu/cpu_features.h"

namespace kvw::cpu {

void attention_scalar(const AttentionBlock& block);
#if defined(__x86_64__)
void attention_avx2(const AttentionBlock& block);
#endif

namespace {

bool always() { return true; }

// AVX-512 is not listed: a group of eight heads (TinyLlama, Llama 3) fills eight lanes, and the
// softmax's lane order is fixed at eight.
constexpr AttentionKernel kKernels[] = {
#if defined(__x86_64__)
    {"avx2", cpu_has_avx2, true, attention_avx2},
#endif
    {"scalar", always, false, attention_scalar},
};

}  // namespace

std::span<const AttentionKernel> attention_kernels() { return kKernels; }

const AttentionKernel& best_attention_kernel() {
    for (const AttentionKernel& k : kKernels)
        if (k.cpu_has()) return k;
    return kKernels[std::size(kKernels) - 1];
}

}  // namespace kvw::cpu
