#pragma once
// Internal to the CPU backend: the per-ISA kernels behind CpuBackend::matmul.
#include <cstdint>
#include <span>
#include <string_view>

#include "core/model/weights.h"

namespace kvw::cpu {

// y[t][r] = Σ_k w[r][k] · x[t][k] for rows [row_begin, row_end) and every token t < n
// (x is [n][w.cols], y is [n][w.rows]), for weights of every DType. Quantised weights are read
// as stored and dequantised a block at a time with core/math/dequant.h, so the product uses
// exactly the values a float64 reference gets from the same blocks.
//
// Within one kernel every output element is accumulated the same way whatever tile, thread or
// batch it lands in, so the result does not depend on the number of threads nor on how many
// tokens are multiplied at once. Every kernel uses eight float lanes per output, lane l
// summing k ≡ l (mod 8) in increasing k (the tail zero-padded), then adds the lanes as
// ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)). The AVX2 and AVX-512 kernels fuse each multiply-add,
// so they give the same bits and `cpu` (the fastest kernel present) is the same function of
// its inputs on every machine with AVX2; AVX-512 gets its width from two tokens side by side in
// a vector (matmul_avx512.cpp). The scalar kernel, the portable fallback, rounds twice.
// Block weights are dequantised to the values of core/math/dequant.h (the SIMD kernels in
// registers, matmul_tiles.inc) and then multiplied like any float.
using RowsKernelFn = void (*)(const WeightTensor& w, const float* x, int n, float* y,
                              int64_t row_begin, int64_t row_end);

void matmul_rows_scalar(const WeightTensor& w, const float* x, int n, float* y, int64_t row_begin,
                        int64_t row_end);
#if defined(__x86_64__)
// AVX2 + FMA + F16C.
void matmul_rows_avx2(const WeightTensor& w, const float* x, int n, float* y, int64_t row_begin,
                      int64_t row_end);
// AVX-512 F + BW + VL (with F16C).
void matmul_rows_avx512(const WeightTensor& w, const float* x, int n, float* y, int64_t row_begin,
                        int64_t row_end);
#endif

struct RowsKernel {
    std::string_view name;  // "avx512", "avx2", "scalar"
    bool (*cpu_has)();      // whether this CPU (and OS) can run it
    RowsKernelFn fn;
};

// Every kernel built into this program, fastest first; the last (scalar) runs everywhere.
std::span<const RowsKernel> rows_kernels();

}  // namespace kvw::cpu
