#include "core/model/safetensors_file.h"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/model/model_error.h"
#include "core/model/model_json.h"
#include "core/model/weight_file.h"

namespace kvw {
namespace {

using nlohmann::json;

constexpr uint64_t kLengthBytes = 8;

uint64_t read_u64_le(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

DType parse_dtype(const json& value, const std::string& file, const std::string& tensor) {
    if (!value.is_string())
        throw ModelError(ModelErrorKind::BadMetadata, file, "dtype is not a string", std::nullopt,
                         tensor);
    const std::string name = value.get<std::string>();
    if (name == "F32") return DType::F32;
    if (name == "F16") return DType::F16;
    if (name == "BF16") return DType::BF16;
    throw ModelError(ModelErrorKind::UnknownTensorType, file,
                     "dtype " + name + " (supported: F32, F16, BF16)", std::nullopt, tensor);
}

uint64_t as_u64(const json& value, const std::string& file, const std::string& tensor,
                const char* what) {
    if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<int64_t>() >= 0))
        throw ModelError(ModelErrorKind::BadMetadata, file,
                         std::string(what) + " is not a non-negative integer", std::nullopt,
                         tensor);
    return value.get<uint64_t>();
}

SafetensorsTensor parse_tensor(const std::string& name, const json& entry, const std::string& file,
                               uint64_t data_start, uint64_t file_size) {
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
        !entry.contains("data_offsets"))
        throw ModelError(ModelErrorKind::BadMetadata, file,
                         "tensor entry needs dtype, shape and data_offsets", std::nullopt, name);
    SafetensorsTensor t;
    t.name = name;
    t.dtype = parse_dtype(entry["dtype"], file, name);

    const json& shape = entry["shape"];
    if (!shape.is_array())
        throw ModelError(ModelErrorKind::BadMetadata, file, "shape is not an array", std::nullopt,
                         name);
    uint64_t elements = 1;
    for (const json& dim : shape) {
        const uint64_t d = as_u64(dim, file, name, "shape dimension");
        if (d != 0 && elements > std::numeric_limits<uint64_t>::max() / 16 / d)
            throw ModelError(ModelErrorKind::ShapeMismatch, file, "shape overflows", std::nullopt,
                             name);
        elements *= d;
        t.shape.push_back(int64_t(d));
    }

    const json& offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2)
        throw ModelError(ModelErrorKind::BadMetadata, file, "data_offsets is not [begin, end]",
                         std::nullopt, name);
    const uint64_t begin = as_u64(offsets[0], file, name, "data offset");
    const uint64_t end = as_u64(offsets[1], file, name, "data offset");
    if (end < begin)
        throw ModelError(
            ModelErrorKind::BadMetadata, file,
            "data_offsets end " + std::to_string(end) + " < begin " + std::to_string(begin),
            data_start + begin, name);
    if (end > file_size - data_start)
        throw ModelError(ModelErrorKind::TensorDataPastEnd, file,
                         "data ends at byte " + std::to_string(data_start + end) +
                             " but the file has " + std::to_string(file_size),
                         data_start + begin, name);
    t.offset = data_start + begin;
    t.size = end - begin;
    const uint64_t expected = elements * dtype_size(t.dtype);
    if (t.size != expected)
        throw ModelError(ModelErrorKind::ShapeMismatch, file,
                         "data holds " + std::to_string(t.size) + " bytes, shape and dtype need " +
                             std::to_string(expected),
                         t.offset, name);
    return t;
}

}  // namespace

SafetensorsFile::SafetensorsFile(std::shared_ptr<const ByteSource> source)
    : source_(std::move(source)) {
    const std::string& file = source_->name();
    const std::span<const uint8_t> bytes = source_->bytes();
    if (bytes.size() < kLengthBytes)
        throw ModelError(ModelErrorKind::Truncated, file, "shorter than the 8-byte header length",
                         uint64_t(0));
    const uint64_t header_len = read_u64_le(bytes.data());
    if (header_len > bytes.size() - kLengthBytes)
        throw ModelError(ModelErrorKind::Truncated, file,
                         "header of " + std::to_string(header_len) + " bytes runs past the end (" +
                             std::to_string(bytes.size()) + " bytes)",
                         kLengthBytes);
    const uint64_t data_start = kLengthBytes + header_len;

    const json header = parse_model_json(
        std::string_view(reinterpret_cast<const char*>(bytes.data()) + kLengthBytes,
                         size_t(header_len)),
        file, ModelErrorKind::BadMetadata, kLengthBytes);
    if (!header.is_object())
        throw ModelError(ModelErrorKind::BadMetadata, file, "header is not a JSON object",
                         kLengthBytes);

    // nlohmann's objects are std::maps: items() come in name order, which find() relies on.
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object())
                throw ModelError(ModelErrorKind::BadMetadata, file, "__metadata__ is not an object",
                                 kLengthBytes);
            for (const auto& [key, value] : entry.items()) {
                if (!value.is_string())
                    throw ModelError(ModelErrorKind::BadMetadata, file,
                                     "__metadata__ value of '" + key + "' is not a string",
                                     kLengthBytes);
                metadata_[key] = value.get<std::string>();
            }
            continue;
        }
        tensors_.push_back(parse_tensor(name, entry, file, data_start, bytes.size()));
    }

    // No two tensors may share bytes; zero-sized tensors occupy nothing.
    std::vector<const SafetensorsTensor*> by_offset;
    for (const SafetensorsTensor& t : tensors_)
        if (t.size > 0) by_offset.push_back(&t);
    std::sort(by_offset.begin(), by_offset.end(),
              [](const auto* a, const auto* b) { return a->offset < b->offset; });
    for (size_t i = 1; i < by_offset.size(); ++i) {
        const SafetensorsTensor& prev = *by_offset[i - 1];
        const SafetensorsTensor& cur = *by_offset[i];
        if (cur.offset < prev.offset + prev.size)
            throw ModelError(ModelErrorKind::TensorDataPastEnd, file,
                             "data overlaps tensor '" + prev.name + "'", cur.offset, cur.name);
    }
}

SafetensorsFile SafetensorsFile::open(const std::string& path) {
    return SafetensorsFile(open_weight_file(path));
}

const SafetensorsTensor* SafetensorsFile::find(std::string_view name) const {
    const auto it =
        std::lower_bound(tensors_.begin(), tensors_.end(), name,
                         [](const SafetensorsTensor& t, std::string_view n) { return t.name < n; });
    return it != tensors_.end() && it->name == name ? &*it : nullptr;
}

std::span<const uint8_t> SafetensorsFile::data(const SafetensorsTensor& tensor) const {
    return source_->bytes().subspan(tensor.offset, tensor.size);
}

}  // namespace kvw
