#pragma once
// Internal to the CPU backend: the per-ISA kernels behind CpuBackend::matmul.
#include <cstdint>

#include "core/model/weights.h"

namespace kvw::cpu {

// y[t][r] = Σ_k w[r][k] · x[t][k] for rows [row_begin, row_end) and every token t < n
// (x is [n][w.cols], y is [n][w.rows]).
//
// Every output element is accumulated the same way whatever tile, thread or batch it lands
// in: eight float lanes, lane l summing k ≡ l (mod 8) in increasing k (the tail zero-padded),
// then the lanes added as ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)). The result therefore does not
// depend on the number of threads nor on how many tokens are multiplied at once.
void matmul_rows_scalar(const WeightTensor& w, const float* x, int n, float* y, int64_t row_begin,
                        int64_t row_end);

#if defined(__x86_64__)
// AVX2 + FMA + F16C; the caller checks the CPU supports them. Same lane order as the scalar
// kernel, with fused multiply-adds.
void matmul_rows_avx2(const WeightTensor& w, const float* x, int n, float* y, int64_t row_begin,
                      int64_t row_end);
#endif

}  // namespace kvw::cpu
