#pragma once
// KVW_HD marks the element-wise and row maths that both backends share: the CPU backend calls
// these functions directly and the CUDA kernels in kernels/ call the very same code, so the
// arithmetic is tested on machines without a GPU.
#if defined(__CUDACC__)
#define KVW_HD __host__ __device__ inline
#else
#define KVW_HD inline
#endif

namespace kvw {

// Values a loop that one device thread runs alone (a row's sum in index order) reads before it
// uses them: loads issued together wait for memory once, not once a value, and the arithmetic
// keeps its order, so its bits.
inline constexpr int kHdLoadBatch = 16;

}  // namespace kvw
