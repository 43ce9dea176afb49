#pragma once
#include <cstdint>
#include <span>

#include "core/model/gguf_types.h"

namespace kvw {

// Decodes a tensor stored as `type` (the file's bytes, any of the GGUF types the loader
// reads) into float32. out.size() is the element count; src must hold exactly that many
// elements' blocks (std::invalid_argument otherwise). Large tensors use all hardware threads.
void dequantize(GgufType type, std::span<const uint8_t> src, std::span<float> out);

}  // namespace kvw
