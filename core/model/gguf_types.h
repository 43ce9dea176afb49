#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/model/dtype.h"

namespace kvw {

// Tensor element types as numbered in the GGUF format (ggml_type). Only those the loader can
// read are named; any other number is reported as UnknownTensorType.
enum class GgufType : uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q8_0 = 8,
    Q4_K = 12,
    Q6_K = 14,
    BF16 = 30,
};

// Storage geometry of a tensor type: `block_elems` consecutive elements of a row are stored
// in `block_bytes` bytes (1 and the element size for the plain float types).
struct GgufBlockLayout {
    uint32_t block_elems;
    uint32_t block_bytes;
};

// The named type for a raw ggml_type number, or nothing when the loader cannot read it.
std::optional<GgufType> gguf_type_from_number(uint32_t number);
GgufBlockLayout gguf_block_layout(GgufType type);
std::string_view gguf_type_name(GgufType type);  // "F32", "Q4_K", ...
// The in-memory type of a tensor stored as `type`: the same encoding (weights stay as stored).
DType dtype_of(GgufType type);
// The type named in lower case ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_k", "q6_k"), as
// command options and synthetic model names spell it; nothing for any other text.
std::optional<GgufType> gguf_type_from_name(std::string_view lower_case_name);
// Those names joined by `separator`, for help and error texts.
std::string gguf_type_names(std::string_view separator);
// The types those names stand for, in that order (F32 first, then by size).
std::span<const GgufType> gguf_named_types();

// Metadata value types as numbered in the file (gguf_metadata_value_type). Note that these
// numbers are not the GgufValue variant indices (ARRAY is 9 in the file, last in the variant).
enum class GgufValueType : uint32_t {
    UInt8 = 0,
    Int8 = 1,
    UInt16 = 2,
    Int16 = 3,
    UInt32 = 4,
    Int32 = 5,
    Float32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    UInt64 = 10,
    Int64 = 11,
    Float64 = 12,
};

// A metadata value. Arrays hold one element type each; nested arrays are allowed by the format.
class GgufArray;
using GgufValue = std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool,
                               std::string, uint64_t, int64_t, double, GgufArray>;

// A metadata array. One read from a file is a view of its bytes there, decoded element by
// element when asked: files carry arrays the loader never reads (llama.cpp's
// tokenizer.ggml.merges holds ~280,000 strings), and a decoded GgufValue costs ~40 bytes
// however small the element, so a 64 MiB uint8 array would take 2.7 GB. One built in memory
// (the synthetic writer, tests) holds its values.
class GgufArray {
public:
    GgufArray() = default;
    GgufArray(uint32_t element_type, std::vector<GgufValue> values);
    // `count` elements encoded in `bytes` as GGUF stores them, validated by the reader;
    // `owner` keeps the bytes alive.
    static GgufArray view(uint32_t element_type, uint64_t count, std::span<const uint8_t> bytes,
                          std::shared_ptr<const void> owner);

    uint32_t element_type() const { return element_type_; }  // gguf_metadata_value_type
    uint64_t size() const { return view_ ? count_ : values_.size(); }
    bool empty() const { return size() == 0; }
    // Calls `f` with every element in order; a view decodes one at a time.
    void for_each(const std::function<void(const GgufValue&)>& f) const;
    std::vector<GgufValue> values() const;  // every element, decoded
    // The encoded elements of a view, for writing them back unchanged; nothing when built.
    std::optional<std::span<const uint8_t>> encoded() const;

private:
    uint32_t element_type_ = 0;
    std::vector<GgufValue> values_;  // built
    bool view_ = false;
    uint64_t count_ = 0;
    std::span<const uint8_t> bytes_;
    std::shared_ptr<const void> owner_;
};

// The file's type number of the alternative a value holds.
GgufValueType gguf_value_type(const GgufValue& value);
std::string_view gguf_value_type_name(GgufValueType type);  // "uint32", "array", ...

}  // namespace kvw
