#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/gguf_types.h"
#include "core/model/mapped_file.h"

namespace kvw {

struct GgufTensorInfo {
    std::string name;
    GgufType type = GgufType::F32;
    std::vector<uint64_t> shape;  // ne[]: shape[0] is the innermost (contiguous) dimension
    uint64_t offset = 0;          // from the start of the data section
    uint64_t info_offset = 0;     // file offset of this tensor's info record (for errors)

    uint64_t n_elements() const;
    uint64_t n_bytes() const;  // storage size in the file
};

// A parsed GGUF v2/v3 file. Parsing reads the header, all metadata and all tensor infos and
// checks that every tensor's data lies inside the file; tensor data is not touched until
// asked for. Every failure throws ModelError naming the file and the byte offset.
class GgufFile {
public:
    explicit GgufFile(std::shared_ptr<const ByteSource> source);

    const std::shared_ptr<const ByteSource>& source() const { return source_; }
    const std::string& file_name() const { return source_->name(); }
    uint32_t version() const { return version_; }
    uint64_t alignment() const { return alignment_; }
    uint64_t data_offset() const { return data_offset_; }  // start of the data section

    // Metadata in file order.
    const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return metadata_; }
    const GgufValue* find(std::string_view key) const;  // nullptr when absent
    bool has(std::string_view key) const { return find(key) != nullptr; }
    // File offset of the entry (its key's length field), for errors about its value.
    std::optional<uint64_t> metadata_offset(std::string_view key) const;

    // Typed getters. Absent key: MissingMetadata; a value of an unsuitable type or out of the
    // target's range: BadMetadata. Integer getters accept any integer type (and bool is not an
    // integer); get_f32 accepts float32 and float64. The overloads with a fallback return it
    // when the key is absent (and still throw BadMetadata on a wrong type).
    uint32_t get_u32(std::string_view key) const;
    uint32_t get_u32(std::string_view key, uint32_t fallback) const;
    uint64_t get_u64(std::string_view key) const;
    int64_t get_i64(std::string_view key) const;
    float get_f32(std::string_view key) const;
    float get_f32(std::string_view key, float fallback) const;
    bool get_bool(std::string_view key) const;
    bool get_bool(std::string_view key, bool fallback) const;
    const std::string& get_string(std::string_view key) const;
    const GgufArray& get_array(std::string_view key) const;

    // Throws BadMetadata naming `key` and its offset (for callers that validate a value
    // themselves).
    [[noreturn]] void bad_metadata(std::string_view key, const std::string& why) const;

    const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
    const GgufTensorInfo* find_tensor(std::string_view name) const;  // nullptr when absent
    // The tensor's bytes inside the source (valid as long as the source lives).
    std::span<const uint8_t> tensor_bytes(const GgufTensorInfo& info) const;

private:
    const GgufValue& require(std::string_view key) const;

    std::shared_ptr<const ByteSource> source_;
    uint32_t version_ = 0;
    uint64_t alignment_ = 32;
    uint64_t data_offset_ = 0;
    std::vector<std::pair<std::string, GgufValue>> metadata_;
    std::vector<uint64_t> metadata_offsets_;  // file offset of each entry, for errors
    std::map<std::string, size_t, std::less<>> metadata_index_;
    std::vector<GgufTensorInfo> tensors_;
    std::map<std::string, size_t, std::less<>> tensor_index_;
};

}  // namespace kvw
