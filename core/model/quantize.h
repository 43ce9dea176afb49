#pragma once
// Encoders for the ggml block types (the writer's side of core/math/dequant.h): plain
// round-to-nearest with per-block scales, not llama.cpp's error-minimising search. Used to
// make quantised models from float weights (kvw make-model --type, tests, benchmarks).
#include <cstdint>
#include <vector>

#include "core/model/gguf_types.h"

namespace kvw {

// `rows` rows of `cols` float32 values in the file encoding of `type` (any GGUF type the
// loader reads). std::invalid_argument when cols is not a multiple of the type's block.
std::vector<uint8_t> quantize_rows(GgufType type, const float* values, int64_t rows, int64_t cols);

}  // namespace kvw
