#pragma once
#include <cstdint>

namespace kvw {

// How RoPE pairs the dimensions of a head. GGUF llama checkpoints (converted with Q/K permuted)
// rotate adjacent pairs (2i, 2i+1); Hugging Face checkpoints rotate (i, i + head_dim/2). A plain
// value beside the rotation maths (rope.h), which the CUDA kernels include too.
enum class RopeLayout : uint8_t { Interleaved, HalfSplit };

}  // namespace kvw
