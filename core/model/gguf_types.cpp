#include "core/model/gguf_types.h"

namespace kvw {

std::optional<GgufType> gguf_type_from_number(uint32_t number) {
    switch (number) {
        case uint32_t(GgufType::F32):
        case uint32_t(GgufType::F16):
        case uint32_t(GgufType::Q4_0):
        case uint32_t(GgufType::Q8_0):
        case uint32_t(GgufType::Q4_K):
        case uint32_t(GgufType::Q6_K):
        case uint32_t(GgufType::BF16): return GgufType(number);
        default: return std::nullopt;
    }
}

GgufBlockLayout gguf_block_layout(GgufType type) {
    switch (type) {
        case GgufType::F32: return {1, 4};
        case GgufType::F16: return {1, 2};
        case GgufType::BF16: return {1, 2};
        case GgufType::Q8_0: return {32, 34};    // f16 scale + 32 int8
        case GgufType::Q4_0: return {32, 18};    // f16 scale + 16 bytes of nibbles
        case GgufType::Q4_K: return {256, 144};  // 2 f16 + 12 scale bytes + 128 nibble bytes
        case GgufType::Q6_K: return {256, 210};  // 128 ql + 64 qh + 16 int8 scales + f16
    }
    return {1, 1};
}

std::string_view gguf_type_name(GgufType type) {
    switch (type) {
        case GgufType::F32: return "F32";
        case GgufType::F16: return "F16";
        case GgufType::BF16: return "BF16";
        case GgufType::Q8_0: return "Q8_0";
        case GgufType::Q4_0: return "Q4_0";
        case GgufType::Q4_K: return "Q4_K";
        case GgufType::Q6_K: return "Q6_K";
    }
    return "?";
}

DType dtype_of(GgufType type) {
    switch (type) {
        case GgufType::F32: return DType::F32;
        case GgufType::F16: return DType::F16;
        case GgufType::BF16: return DType::BF16;
        case GgufType::Q8_0: return DType::Q8_0;
        case GgufType::Q4_0: return DType::Q4_0;
        case GgufType::Q4_K: return DType::Q4_K;
        case GgufType::Q6_K: return DType::Q6_K;
    }
    return DType::F32;
}

namespace {
constexpr GgufType kNamedTypes[] = {GgufType::F32,  GgufType::F16,  GgufType::BF16, GgufType::Q8_0,
                                    GgufType::Q4_0, GgufType::Q4_K, GgufType::Q6_K};

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return out;
}
}  // namespace

std::optional<GgufType> gguf_type_from_name(std::string_view lower_case_name) {
    for (const GgufType t : kNamedTypes)
        if (lower(gguf_type_name(t)) == lower_case_name) return t;
    return std::nullopt;
}

std::span<const GgufType> gguf_named_types() { return kNamedTypes; }

std::string gguf_type_names(std::string_view separator) {
    std::string out;
    for (const GgufType t : kNamedTypes)
        out += (out.empty() ? "" : std::string(separator)) + lower(gguf_type_name(t));
    return out;
}

GgufValueType gguf_value_type(const GgufValue& value) {
    // Variant order: u8 i8 u16 i16 u32 i32 f32 bool string u64 i64 f64 array.
    static constexpr GgufValueType by_index[] = {
        GgufValueType::UInt8,   GgufValueType::Int8,   GgufValueType::UInt16,
        GgufValueType::Int16,   GgufValueType::UInt32, GgufValueType::Int32,
        GgufValueType::Float32, GgufValueType::Bool,   GgufValueType::String,
        GgufValueType::UInt64,  GgufValueType::Int64,  GgufValueType::Float64,
        GgufValueType::Array,
    };
    static_assert(std::size(by_index) == std::variant_size_v<GgufValue>);
    return by_index[value.index()];
}

std::string_view gguf_value_type_name(GgufValueType type) {
    switch (type) {
        case GgufValueType::UInt8: return "uint8";
        case GgufValueType::Int8: return "int8";
        case GgufValueType::UInt16: return "uint16";
        case GgufValueType::Int16: return "int16";
        case GgufValueType::UInt32: return "uint32";
        case GgufValueType::Int32: return "int32";
        case GgufValueType::Float32: return "float32";
        case GgufValueType::Bool: return "bool";
        case GgufValueType::String: return "string";
        case GgufValueType::Array: return "array";
        case GgufValueType::UInt64: return "uint64";
        case GgufValueType::Int64: return "int64";
        case GgufValueType::Float64: return "float64";
    }
    return "unknown";
}

}  // namespace kvw
