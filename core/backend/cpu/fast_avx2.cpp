// The fast set on AVX2 (fast_kernels.h): vpmaddubsw pairs, vpmaddwd to int32; F16 / BF16 in two
// 256-bit FMA vectors. Only these
// functions carry the target attribute; FastCpuBackend picks them after checking the CPU.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/backend/cpu/fast_kernels.h"
#include "core/math/act_quant.h"
#include "core/math/dequant.h"

#define KVW_SIMD __attribute__((target("avx2,fma,f16c")))

namespace kvw::cpu {

namespace {

#include "core/backend/cpu/fast_lanes256.inc"

struct Isa {
    using Lanes16 = Lanes16x256;
    static constexpr bool kQuadsInOneStep = false;  // quads take two steps, pairs one
    KVW_SIMD static __m256i quads(__m256i acc, __m256i u, __m256i s) {
        return _mm256_add_epi32(
            acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
    }
    KVW_SIMD static __m256i pairs(__m256i acc, __m256i a, __m256i b) {
        return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
    }
};

#include "core/backend/cpu/fast_tiles.inc"

}  // namespace

void fast_rows_avx2(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                    int64_t row_end) {
    fast_rows_any(w, x, n, y, row_begin, row_end);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
