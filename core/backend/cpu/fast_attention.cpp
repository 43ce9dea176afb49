#include "core/backend/cpu/fast_attention.h"

#include "core/backend/cpu/cpu_features.h"

namespace kvw::cpu {

#if defined(__x86_64__)
void fast_attention_chunk_avx512(const FastAttentionChunk& chunk);
void fast_attention_merge_avx512(int n_chunks, const float* m, const float* s, size_t stride,
                                 const float* o, size_t o_stride, int hd, float* out,
                                 float* weights);
#endif

// No AVX2 kernel yet: on a CPU without AVX-512 `cpu:fast` attends as the reference does.
#if defined(__x86_64__)
namespace {
constexpr FastAttentionKernel kKernels[] = {
    {"avx512", cpu_has_avx512, fast_attention_chunk_avx512, fast_attention_merge_avx512},
};
}  // namespace

std::span<const FastAttentionKernel> fast_attention_kernels() { return kKernels; }
#else
std::span<const FastAttentionKernel> fast_attention_kernels() { return {}; }
#endif

const FastAttentionKernel* best_fast_attention_kernel() {
    for (const FastAttentionKernel& k : fast_attention_kernels())
        if (k.cpu_has()) return &k;
    return nullptr;
}

}  // namespace kvw::cpu
