#include "core/backend/cpu/fast_attention.h"

#include <stdexcept>
#include <string>

#include "core/backend/cpu/cpu_features.h"

namespace kvw::cpu {

#if defined(__x86_64__)
void fast_attention_chunk_avx512(const FastAttentionChunk& chunk);
void fast_attention_merge_avx512(int n_chunks, const float* m, const float* s, size_t stride,
                                 const float* o, size_t o_stride, int hd, float* out,
                                 float* weights);
void fast_attention_add_weighted_avx512(float* mass, const float* e, float w, int n);
void fast_attention_chunk_avx512fp16(const FastAttentionChunk& chunk);
void fast_attention_chunk_avx2(const FastAttentionChunk& chunk);
void fast_attention_merge_avx2(int n_chunks, const float* m, const float* s, size_t stride,
                               const float* o, size_t o_stride, int hd, float* out, float* weights);
void fast_attention_add_weighted_avx2(float* mass, const float* e, float w, int n);

namespace {
// The avx512fp16 kernel differs from the avx512 one only in its scores: the merge and the
// attention mass are the same functions.
constexpr FastAttentionKernel kKernels[] = {
    {"avx512fp16", cpu_has_avx512_fp16, AttentionScores::Half, fast_attention_chunk_avx512fp16,
     fast_attention_merge_avx512, fast_attention_add_weighted_avx512},
    {"avx512", cpu_has_avx512, AttentionScores::Float, fast_attention_chunk_avx512,
     fast_attention_merge_avx512, fast_attention_add_weighted_avx512},
    {"avx2", cpu_has_avx2, AttentionScores::Float, fast_attention_chunk_avx2,
     fast_attention_merge_avx2, fast_attention_add_weighted_avx2},
};
}  // namespace

std::span<const FastAttentionKernel> fast_attention_kernels() { return kKernels; }
#else
std::span<const FastAttentionKernel> fast_attention_kernels() { return {}; }
#endif

const FastAttentionKernel& fast_attention_kernel(std::string_view name) {
    for (const FastAttentionKernel& k : fast_attention_kernels())
        if (k.name == name && k.cpu_has()) return k;
    throw std::invalid_argument("cpu:fast has no attention kernel '" + std::string(name) +
                                "' this CPU runs");
}

}  // namespace kvw::cpu
