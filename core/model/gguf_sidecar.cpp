#include "core/model/gguf_sidecar.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/math/half.h"
#include "core/model/model_error.h"

namespace kvw {

uint32_t sidecar_count(const GgufFile& file, const char* key, uint32_t max) {
    const uint32_t v = file.get_u32(key);
    if (v < 1 || v > max)
        file.bad_metadata(key, std::to_string(v) + " is outside [1, " + std::to_string(max) + "]");
    return v;
}

std::string gguf_shape_text(const std::vector<uint64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::vector<float> sidecar_floats(const GgufFile& file, const std::string& name,
                                  const std::vector<uint64_t>& shape, const char* owner) {
    const GgufTensorInfo* info = file.find_tensor(name);
    if (!info)
        throw ModelError(ModelErrorKind::MissingTensor, file.file_name(),
                         std::string(owner) + " needs it", std::nullopt, name);
    if (info->type != GgufType::F32 && info->type != GgufType::F16)
        throw ModelError(
            ModelErrorKind::ShapeMismatch, file.file_name(),
            "type " + std::string(gguf_type_name(info->type)) + "; " + owner + " reads F32 or F16",
            info->info_offset, name);
    if (info->shape != shape)
        throw ModelError(
            ModelErrorKind::ShapeMismatch, file.file_name(),
            "shape " + gguf_shape_text(info->shape) + ", expected " + gguf_shape_text(shape),
            info->info_offset, name);
    const std::span<const uint8_t> bytes = file.tensor_bytes(*info);
    std::vector<float> values(info->n_elements());
    if (info->type == GgufType::F32) {
        std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
    } else {
        for (size_t i = 0; i < values.size(); ++i) {
            uint16_t h;
            std::memcpy(&h, bytes.data() + 2 * i, 2);
            values[i] = fp16_to_float(h);
        }
    }
    for (size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw ModelError(ModelErrorKind::NonFiniteWeight, file.file_name(),
                             "element " + std::to_string(i) + " is not finite", info->info_offset,
                             name);
    return values;
}

void refuse_unexpected_tensors(const GgufFile& file, const std::vector<std::string>& expected,
                               const std::string& why) {
    for (const GgufTensorInfo& t : file.tensors())
        if (std::find(expected.begin(), expected.end(), t.name) == expected.end())
            throw ModelError(ModelErrorKind::ShapeMismatch, file.file_name(), why, t.info_offset,
                             t.name);
}

}  // namespace kvw
