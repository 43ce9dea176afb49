// The fast set on AVX-512 VNNI (fast_kernels.h): the integer steps on 256-bit vectors so that
// their int32 lanes are the AVX2 path's (vpdpbusd sums four u8 · s8 products into each lane,
// vpdpwssd two i16 · i16); F16 / BF16 in sixteen float lanes of one 512-bit vector. Only these
// functions carry the target attribute; FastCpuBackend picks them after checking the CPU.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/backend/cpu/fast_kernels.h"
#include "core/math/act_quant.h"
#include "core/math/dequant.h"

#define KVW_SIMD __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))

namespace kvw::cpu {

namespace {

#include "core/backend/cpu/fast_lanes512.inc"

#include "core/backend/cpu/fast_vnni_steps.inc"

struct Isa : VnniSteps {
    using Lanes16 = Lanes16x512;
};

#include "core/backend/cpu/fast_tiles.inc"

}  // namespace

void fast_rows_vnni(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                    int64_t row_end) {
    if (n >= kVnniBatchTokens && fast_batch_vnni(w, x, n, y, row_begin, row_end)) return;
    fast_rows_any(w, x, n, y, row_begin, row_end);
}

void fast_rows_amx(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                   int64_t row_end) {
    if (w.dtype == DType::BF16) return fast_bf16_amx(w, x, n, y, row_begin, row_end);
    if (n >= kVnniBatchTokens && fast_batch_amx(w, x, n, y, row_begin, row_end)) return;
    fast_rows_any(w, x, n, y, row_begin, row_end);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
