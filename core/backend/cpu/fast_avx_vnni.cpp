// The fast set on AVX-VNNI (fast_kernels.h): the VEX-encoded vpdpbusd / vpdpwssd of CPUs that
// have AVX2 and no AVX-512, in place of the avx2 path's vpmaddubsw + vpmaddwd pairs. The same
// exact int32 lanes as the other paths, so the same bits. Only these functions carry the
// target attribute; FastCpuBackend picks them after checking the CPU.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/backend/cpu/fast_kernels.h"
#include "core/math/act_quant.h"
#include "core/math/dequant.h"

#define KVW_SIMD __attribute__((target("avxvnni,avx2,fma,f16c")))

namespace kvw::cpu {

namespace {

#include "core/backend/cpu/fast_lanes256.inc"

struct Isa {
    using Lanes16 = Lanes16x256;
    static constexpr bool kQuadsInOneStep = true;
    KVW_SIMD static __m256i quads(__m256i acc, __m256i u, __m256i s) {
        return _mm256_dpbusd_avx_epi32(acc, u, s);
    }
    KVW_SIMD static __m256i pairs(__m256i acc, __m256i a, __m256i b) {
        return _mm256_dpwssd_avx_epi32(acc, a, b);
    }
};

#include "core/backend/cpu/fast_tiles.inc"

}  // namespace

void fast_rows_avx_vnni(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                        int64_t row_end) {
    fast_rows_any(w, x, n, y, row_begin, row_end);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
