#pragma once
#include <cstddef>
#include <cstdint>

#include "core/model/dtype.h"

namespace kvw {

// Index of the first NaN or Inf among `count` elements of `dtype` at `data`, or -1 (for a
// quantised type, the first element of the first block whose scale is NaN or Inf). Streams
// at memory speed over all hardware threads: loaders run it over every weight at load.
int64_t find_non_finite(DType dtype, const void* data, size_t count);

}  // namespace kvw
