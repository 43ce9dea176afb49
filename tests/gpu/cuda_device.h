#pragma once
// Shared by the GPU tests: whether this machine has a CUDA device the cuda backend can use.
#include <string>

#include "core/backend/backend_registry.h"
#include "kernels/cuda_backend.h"

namespace kvw::test {

// Empty when the cuda backend can run here (registering it first); otherwise why not, for
// QSKIP, so that a machine without a device skips the whole test and says so.
inline std::string why_no_cuda() {
    register_cuda_backend();
    std::string why;
    return backend_available("cuda", why) ? std::string() : why;
}

}  // namespace kvw::test
