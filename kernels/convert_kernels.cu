#include "kernels/convert_kernels.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "core/math/half.h"
#include "kernels/cuda_check.h"

namespace kvw::cuda {
namespace {

template <DType To>
__global__ void round_from_f32(const float* x, uint16_t* out, size_t n) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        if constexpr (To == DType::F16)
            out[i] = float_to_fp16(x[i]);
        else
            out[i] = float_to_bf16(x[i]);
    }
}

}  // namespace

void convert_from_f32(const float* x, void* out, size_t n, DType to, cudaStream_t stream) {
    if (n == 0) return;
    constexpr unsigned threads = 256;
    // A grid-stride loop: enough blocks to fill any current GPU, never more than the data needs.
    const unsigned blocks = unsigned(std::min<size_t>((n + threads - 1) / threads, 4096));
    auto* dst = static_cast<uint16_t*>(out);
    if (to == DType::F16)
        round_from_f32<DType::F16><<<blocks, threads, 0, stream>>>(x, dst, n);
    else if (to == DType::BF16)
        round_from_f32<DType::BF16><<<blocks, threads, 0, stream>>>(x, dst, n);
    else
        throw std::invalid_argument("convert_from_f32: the target type must be f16 or bf16");
    KVW_CUDA_CHECK(cudaGetLastError());
}

}  // namespace kvw::cuda
