// `cpu:fast`'s attention on AVX2 + FMA + F16C (fast_attention.h): fast_attention_lanes.inc over
// eight-float vectors, the sixteen lanes of the contract's sums in two of them, so it gives the
// AVX-512 kernel's bits. Only these functions carry the target attribute; the backend calls them
// after checking the CPU at run time.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/backend/cpu/fast_attention.h"
#include "core/math/softmax_exp.h"

#define KVW_SIMD __attribute__((target("avx2,fma,f16c")))

namespace kvw::cpu {

namespace {

#include "core/backend/cpu/attention_lanes8.inc"
// after AttentionLanes8, which it extends
#include "core/backend/cpu/fast_attention_lanes8.inc"

// the kernel's vector and its heads-in-lanes scores' (fast_attention_lanes.inc)
using Lanes = FastLanes8;
using Lanes8 = FastLanes8;
using V = Lanes::V;

#include "core/backend/cpu/softmax_exp_lanes.inc"
// after exp_nonpositive, which it calls
#include "core/backend/cpu/fast_attention_lanes.inc"

}  // namespace

void fast_attention_chunk_avx2(const FastAttentionChunk& chunk) { attend_chunk<f32_scores>(chunk); }
void fast_attention_merge_avx2(int n_chunks, const float* m, const float* s, size_t stride,
                               const float* o, size_t o_stride, int hd, float* out,
                               float* weights) {
    merge_chunks(n_chunks, m, s, stride, o, o_stride, hd, out, weights);
}
void fast_attention_add_weighted_avx2(float* mass, const float* e, float w, int n) {
    add_weighted(mass, e, w, n);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
