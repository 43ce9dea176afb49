#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/dtype.h"
#include "core/model/mapped_file.h"

namespace kvw {

// One tensor of a .safetensors file. `offset` is absolute (from the start of the file), so the
// alignment of the data in memory is that of the mapping plus `offset`.
struct SafetensorsTensor {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;  // outermost first, as torch writes it
    uint64_t offset = 0;
    uint64_t size = 0;  // bytes
};

// A parsed .safetensors file: u64 little-endian header length, a JSON header mapping each
// tensor name to {dtype, shape, data_offsets} (plus an optional "__metadata__" string map),
// then the data. The constructor validates everything it can without reading tensor values
// and throws ModelError: Truncated (header past the end), BadMetadata (bad JSON, with the byte
// offset), UnknownTensorType (dtype other than F32/F16/BF16), TensorDataPastEnd (offsets past
// the end or overlapping), ShapeMismatch (byte size != product(shape) * dtype size).
class SafetensorsFile {
public:
    explicit SafetensorsFile(std::shared_ptr<const ByteSource> source);
    static SafetensorsFile open(const std::string& path);  // open_weight_file

    const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }  // by name
    const SafetensorsTensor* find(std::string_view name) const;  // nullptr when absent
    std::span<const uint8_t> data(const SafetensorsTensor& tensor) const;
    const std::map<std::string, std::string>& metadata() const { return metadata_; }
    const std::shared_ptr<const ByteSource>& source() const { return source_; }
    const std::string& path() const { return source_->name(); }

private:
    std::shared_ptr<const ByteSource> source_;
    std::vector<SafetensorsTensor> tensors_;
    std::map<std::string, std::string> metadata_;
};

}  // namespace kvw
