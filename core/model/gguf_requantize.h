#pragma once
#include <cstdint>
#include <vector>

#include "core/model/gguf_file.h"
#include "core/model/gguf_types.h"

namespace kvw {

// The GGUF file `file` with every 2-D tensor whose rows are whole blocks of `type` re-encoded
// as `type` (read with weight_row_to_float, written with quantize_rows); every other tensor
// and every metadata key is copied as it is (general.alignment excepted: the writer aligns to
// 32). How `kvw make-model FILE --type TYPE` makes quantised copies of a real model.
std::vector<uint8_t> requantize_gguf(const GgufFile& file, GgufType type);

}  // namespace kvw
