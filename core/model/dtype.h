#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kvw {

// Storage types of weights once loaded. Quantised file types (Q8_0, Q4_0, Q4_K, Q6_K) are
// dequantised to F32 at load, so the engine only ever sees these three.
enum class DType : uint8_t { F32, F16, BF16 };

constexpr size_t dtype_size(DType t) { return t == DType::F32 ? 4 : 2; }

constexpr std::string_view dtype_name(DType t) {
    switch (t) {
        case DType::F32: return "f32";
        case DType::F16: return "f16";
        case DType::BF16: return "bf16";
    }
    return "?";
}

}  // namespace kvw
