#pragma once
// The device launchers of a forward's steps (issue 29), each running one kernel body of
// kernels/bodies/ (docs/ARCHITECTURE.md §18) with the arithmetic of the CPU code it stands for.
// Every pointer is a device pointer; every call enqueues on `stream` and returns at once.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/math/kv_quant.h"
#include "core/math/rope_layout.h"
#include "core/model/dtype.h"
#include "kernels/bodies/attention.h"

namespace kvw::cuda {

// x[i][cols] = row tokens[i] of the table widened to float (every DType, the values of
// weight_row_to_float); a row whose token is < 0 is left untouched.
void embed_rows(const void* table, DType dtype, int64_t cols, const int32_t* tokens, int n,
                float* x, cudaStream_t stream);

// out[r] = rmsnorm(x[r]) (core/math/rmsnorm.h) for rows of dim floats; out may alias x.
// inverse: scratch of `rows` floats (each row's 1 / RMS).
void rmsnorm_rows(const float* x, const float* weight, int rows, int dim, float eps, float* out,
                  float* inverse, cudaStream_t stream);

// x[r][d] += bias[d].
void add_bias_rows(float* x, const float* bias, int rows, int dim, cudaStream_t stream);

// x[i] += y[i].
void add_into(float* x, const float* y, size_t count, cudaStream_t stream);

// x is [rows][heads · head_dim]; row i's heads are rotated with cos/sin [i][head_dim / 2], the
// tables the host computed with rope_cos_sin (rope_apply per head).
void rope_rows(float* x, int rows, int heads, int head_dim, const float* cos_tab,
               const float* sin_tab, RopeLayout layout, cudaStream_t stream);

// gate[i] = silu(gate[i]) · up[i].
void swiglu_into(float* gate, const float* up, size_t count, cudaStream_t stream);
// counts[p]: the NaN and infinite values of piece p of x's rows (kern::count_nonfinite_body's
// pieces; `counts` holds its pieces()).
void count_nonfinite(const float* x, size_t rows, size_t width, size_t stride, uint32_t* counts,
                     cudaStream_t stream);

// Each row of kv_dim floats encoded to `type` and decoded back in place, `groups` scales a row
// (kv_encode_row / kv_decode_row): the values the cache will hold. kv_dim / groups ≤ 512.
void kv_round_trip_rows(KvType type, float* rows, int n, int kv_dim, int groups,
                        cudaStream_t stream);

// y[n][rows] = x[n][cols] · wᵀ for every DType, w in its file layout; the scalar CPU matmul's
// lanes, each summed in segments of columns (kernels/bodies/matvec.h), through `scratch`
// (matvec_scratch_floats). For decode (small n).
void matvec(const void* w, DType dtype, int64_t rows, int64_t cols, const float* x, int n, float* y,
            float* scratch, cudaStream_t stream);
// The device floats matvec's scratch holds (partial sums: kern::matvec_scratch_floats).
size_t matvec_scratch_floats(int64_t rows, int64_t cols, int n);

// out[rows][cols] = w widened to float (for cuBLAS over batched prefill).
void dequantize_rows(const void* w, DType dtype, int64_t rows, int64_t cols, float* out,
                     cudaStream_t stream);

// Causal GQA attention of one layer (kernels/bodies/attention.h): query i (position
// positions[i]) sees every context row and the new items 0..i within its window; head h uses KV
// head h / (n_heads / n_kv_heads). a.scratch holds attention_scratch_floats(rows, n, n_heads,
// head_dim).
void attention(const DeviceAttention& a, cudaStream_t stream);

}  // namespace kvw::cuda
