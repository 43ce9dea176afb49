#pragma once
// The only kernels/ header the rest of the program includes: plain C++, no CUDA.

namespace kvw {

// Registers the "cuda" BackendEntry with core/backend/backend_registry.h. Its `available()`
// asks the CUDA runtime for a device and, when there is none, says why. Safe to call more than
// once; the CLI and the GUI call it at start-up under #ifdef KVW_WITH_CUDA.
void register_cuda_backend();

}  // namespace kvw
