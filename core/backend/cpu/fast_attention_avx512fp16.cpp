// `cpu:fast`'s attention on AVX-512 with AVX512-FP16 (fast_attention.h): the AVX-512 kernel
// (fast_attention_lanes.inc over sixteen-float vectors) with its scores summed in half precision
// (fast_attention_half_scores.inc). Only these functions carry the target attribute; the backend
// calls them after checking the CPU at run time.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/backend/cpu/fast_attention.h"
#include "core/math/softmax_exp.h"

#define KVW_SIMD __attribute__((target("avx512f,avx512bw,avx512vl,avx512fp16,fma,f16c")))

namespace kvw::cpu {

namespace {

#include "core/backend/cpu/fast_attention_lanes512.inc"

using V = Lanes::V;

#include "core/backend/cpu/attention_lanes8.inc"
// after AttentionLanes8, which it extends
#include "core/backend/cpu/fast_attention_lanes8.inc"

// the vector of the heads-in-lanes scores (fast_attention_lanes.inc): eight heads of a decode
using Lanes8 = FastLanes8;

#include "core/backend/cpu/softmax_exp_lanes.inc"
// after exp_nonpositive, which it calls
#include "core/backend/cpu/fast_attention_lanes.inc"
// after f32_scores, on which it falls back
#include "core/backend/cpu/fast_attention_half_scores.inc"

}  // namespace

void fast_attention_chunk_avx512fp16(const FastAttentionChunk& chunk) {
    attend_chunk<half_scores>(chunk);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
