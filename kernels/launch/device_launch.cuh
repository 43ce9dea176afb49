#pragma once
// The CUDA side of a kernel body (grid.h): one __global__ template that calls the body at its
// (block, thread), and the macro that defines a body's launcher, declared in a plain header for
// the host code of the CUDA backend:
//     namespace kvw::cuda { void launch(const kern::SomeBody&, cudaStream_t); }
// and defined in a .cu file with KVW_DEVICE_LAUNCHER(kern::SomeBody).
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/launch/grid.h"

namespace kvw::cuda {

template <class Body>
__global__ void run_body(Body body) {
    body(kern::At{{blockIdx.x, blockIdx.y, blockIdx.z},
                  {threadIdx.x, threadIdx.y, threadIdx.z},
                  {gridDim.x, gridDim.y, gridDim.z},
                  {blockDim.x, blockDim.y, blockDim.z}});
}

template <class Body>
void launch_body(const Body& body, cudaStream_t stream) {
    const kern::Launch l = body.shape();
    run_body<Body>
        <<<dim3(l.grid.x, l.grid.y, l.grid.z), dim3(l.block.x, l.block.y, l.block.z), 0, stream>>>(
            body);
    KVW_CUDA_CHECK(cudaGetLastError());
}

}  // namespace kvw::cuda

#define KVW_DEVICE_LAUNCHER(Body) \
    void kvw::cuda::launch(const Body& body, cudaStream_t stream) { launch_body(body, stream); }
