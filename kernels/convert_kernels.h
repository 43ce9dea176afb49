#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "core/model/dtype.h"

namespace kvw::cuda {

// out[i] = x[i] rounded to `to` (F16 or BF16) by the core/math/half.h functions the CPU uses,
// so device and host round identically. x and out are device pointers; runs on `stream`.
void convert_from_f32(const float* x, void* out, size_t n, DType to, cudaStream_t stream);

}  // namespace kvw::cuda
