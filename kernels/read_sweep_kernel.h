#pragma once
#include <cuda_runtime.h>

#include "kernels/bodies/read_sweep.h"

namespace kvw::cuda {

// Runs the body on `stream` (kernels/launch/device_launch.cuh).
void launch(const kern::ReadSweep& body, cudaStream_t stream);

}  // namespace kvw::cuda
