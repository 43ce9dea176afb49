#include "core/model/gguf_requantize.h"

#include "core/model/gguf_writer.h"
#include "core/model/quantize.h"
#include "core/model/weights.h"

namespace kvw {

std::vector<uint8_t> requantize_gguf(const GgufFile& file, GgufType type) {
    GgufWriter writer;
    for (const auto& [key, value] : file.metadata())
        if (key != "general.alignment") writer.add(key, value);
    const uint32_t block = gguf_block_layout(type).block_elems;
    for (const GgufTensorInfo& t : file.tensors()) {
        const std::span<const uint8_t> bytes = file.tensor_bytes(t);
        if (t.shape.size() != 2 || t.shape[0] % block != 0) {
            writer.add_tensor(t.name, t.type, t.shape, {bytes.begin(), bytes.end()});
            continue;
        }
        WeightTensor w;
        w.dtype = dtype_of(t.type);
        w.cols = int64_t(t.shape[0]);
        w.rows = int64_t(t.shape[1]);
        w.data = bytes.data();
        std::vector<float> values(size_t(w.rows * w.cols));
        for (int64_t r = 0; r < w.rows; ++r) weight_row_to_float(w, r, &values[size_t(r * w.cols)]);
        writer.add_tensor(t.name, type, t.shape,
                          quantize_rows(type, values.data(), w.rows, w.cols));
    }
    return writer.to_bytes();
}

}  // namespace kvw
