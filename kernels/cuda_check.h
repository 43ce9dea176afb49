#pragma once
// Every CUDA runtime and cuBLAS call in kernels/ goes through KVW_CUDA_CHECK, so a failure
// becomes a std::runtime_error that names the call and carries the library's own explanation.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace kvw::cuda {

inline void check(cudaError_t err, const char* call) {
    if (err == cudaSuccess) return;
    throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorName(err) + " (" +
                             cudaGetErrorString(err) + ")");
}

inline void check(cublasStatus_t status, const char* call) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusName(status) + " (" +
                             cublasGetStatusString(status) + ")");
}

}  // namespace kvw::cuda

#define KVW_CUDA_CHECK(call) ::kvw::cuda::check((call), #call)
