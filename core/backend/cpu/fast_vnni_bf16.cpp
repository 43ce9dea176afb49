// The vnni path with BF16 on vdpbf16ps (fast_kernels.h): where the CPU has AVX-512 BF16, a
// chunk of 32 bf16 products is one instruction instead of two FMA steps. fast_kernels.h's BF16
// order is vdpbf16ps's (test_fast_kernels checks the instruction against it), so this path gives
// the vnni path's bits; every other type is computed as the vnni path does. Only these functions
// carry the target attribute; FastCpuBackend picks them after checking the CPU.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/backend/cpu/fast_kernels.h"
#include "core/math/act_quant.h"
#include "core/math/dequant.h"

#define KVW_SIMD \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512bf16,avx2,fma,f16c")))

namespace kvw::cpu {

namespace {

#include "core/backend/cpu/fast_lanes512.inc"
#include "core/backend/cpu/fast_vnni_steps.inc"

// Lanes16x512 with BF16 in one vdpbf16ps a chunk, at step 0 (step 1 adds nothing): the
// weights' and x's 32 bf16 as stored, lane l holding elements 2l (low) and 2l + 1 (high).
struct Lanes16x512Dp : Lanes16x512 {
    using Lanes16x512::load_x;

    KVW_SIMD static W load_bf16(const uint8_t* chunk, int step) {
        return step == 0 ? _mm512_castsi512_ps(_mm512_loadu_si512(chunk)) : zero();
    }
    KVW_SIMD static X load_x(const ActChunkBf16& x, int step) {
        return load_bf16(reinterpret_cast<const uint8_t*>(x.bf16), step);
    }
    KVW_SIMD static void fma_bf16(V& acc, W w, X x, int step) {
        if (step == 0)
            acc = _mm512_dpbf16_ps(acc, __m512bh(_mm512_castps_si512(w)),
                                   __m512bh(_mm512_castps_si512(x)));
    }
    // BF16 batches 5 rows × 5 tokens: a chunk is one register per row and token, so 25
    // accumulators fit beside them (4 % faster than 6 × 4 on Zen 4's prefill)
    static constexpr int kBf16BatchRows = 5, kBf16BatchTokens = 5;
};

struct Isa : VnniSteps {
    using Lanes16 = Lanes16x512Dp;
};

#include "core/backend/cpu/fast_tiles.inc"

}  // namespace

void fast_rows_vnni_bf16(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                         int64_t row_end) {
    if (n >= kVnniBatchTokens && fast_batch_vnni(w, x, n, y, row_begin, row_end)) return;
    fast_rows_any(w, x, n, y, row_begin, row_end);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
