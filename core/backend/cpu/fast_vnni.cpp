// The fast set on AVX-512 (fast_kernels.h), two paths: `vnni` and `avx512-bf16`, which adds
// vdpbf16ps for BF16 weights. Their integer steps run on 256-bit vectors so that their int32
// lanes are the AVX2 path's: vpdpbusd sums four u8 · s8 products into each lane, vpdpwssd two
// i16 · i16; F16 / BF16 use sixteen float lanes in one 512-bit vector. Only these functions
// carry the target attributes; FastCpuBackend picks them after checking the CPU.
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstring>

#include "core/backend/cpu/fast_kernels.h"
#include "core/math/act_quant.h"
#include "core/math/dequant.h"

#define KVW_SIMD __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))

namespace kvw::cpu {

namespace {

struct VnniSteps {
    KVW_SIMD static __m256i quads(__m256i acc, __m256i u, __m256i s) {
        return _mm256_dpbusd_epi32(acc, u, s);
    }
    KVW_SIMD static __m256i pairs(__m256i acc, __m256i a, __m256i b) {
        return _mm256_dpwssd_epi32(acc, a, b);
    }
};

#include "core/backend/cpu/fast_lanes512.inc"

}  // namespace

namespace vnni {
namespace {

struct Isa : VnniSteps {
    using Lanes16 = Lanes16x512;
};

#include "core/backend/cpu/fast_tiles.inc"

}  // namespace
}  // namespace vnni

#undef KVW_SIMD
#define KVW_SIMD \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512bf16,avx2,fma,f16c")))

namespace vnni_bf16 {
namespace {

// vdpbf16ps in place of the two FMAs of Lanes16x512::dot_bf16: the same roundings (the odd
// product first, subnormals flushed; fast_kernels.h), one instruction for 32 products.
struct Lanes16Bf16 : Lanes16x512 {
    struct Bf16W {
        __m512i pairs;
    };
    KVW_SIMD static Bf16W load_bf16(const uint8_t* p) { return {_mm512_loadu_si512(p)}; }
    KVW_SIMD static void dot_bf16(V& acc, const Bf16W& w, const uint16_t* x) {
        acc = _mm512_dpbf16_ps(acc, __m512bh(w.pairs), __m512bh(_mm512_loadu_si512(x)));
    }
};

struct Isa : VnniSteps {
    using Lanes16 = Lanes16Bf16;
};

#include "core/backend/cpu/fast_tiles.inc"

}  // namespace
}  // namespace vnni_bf16

void fast_rows_vnni(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                    int64_t row_end) {
    vnni::fast_rows_any(w, x, n, y, row_begin, row_end);
}

void fast_rows_avx512_bf16(const WeightTensor& w, const void* x, int n, float* y,
                           int64_t row_begin, int64_t row_end) {
    vnni_bf16::fast_rows_any(w, x, n, y, row_begin, row_end);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
