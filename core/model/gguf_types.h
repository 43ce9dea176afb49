#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

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

// A metadata value. Arrays hold one element type each; nested arrays are allowed by the format.
struct GgufArray;
using GgufValue = std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float,
                               bool, std::string, uint64_t, int64_t, double, GgufArray>;
struct GgufArray {
    uint32_t element_type = 0;  // gguf_metadata_value_type of the elements
    std::vector<GgufValue> values;
};

}  // namespace kvw
