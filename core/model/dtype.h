#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kvw {

// Storage types of weights in memory: the plain float types and the ggml block-quantised types
// a GGUF file stores, kept as the file has them (docs/ARCHITECTURE.md §5.1). A row of `cols`
// elements is cols / block_elems blocks of block_bytes bytes; the plain types are blocks of one.
enum class DType : uint8_t { F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K };

struct DTypeBlock {
    uint32_t elems;
    uint32_t bytes;
};

constexpr DTypeBlock dtype_block(DType t) {
    switch (t) {
        case DType::F32: return {1, 4};
        case DType::F16: return {1, 2};
        case DType::BF16: return {1, 2};
        case DType::Q8_0: return {32, 34};    // f16 scale + 32 int8
        case DType::Q4_0: return {32, 18};    // f16 scale + 16 bytes of nibbles
        case DType::Q4_K: return {256, 144};  // 2 f16 + 12 scale bytes + 128 nibble bytes
        case DType::Q6_K: return {256, 210};  // 128 ql + 64 qh + 16 int8 scales + f16
    }
    return {1, 1};
}

constexpr bool dtype_is_quantized(DType t) { return dtype_block(t).elems > 1; }

// Bytes of one element of a plain float type (F32, F16, BF16); the quantised types have no
// per-element size, use dtype_row_bytes.
constexpr size_t dtype_size(DType t) { return t == DType::F32 ? 4 : 2; }

// Bytes of a row of `cols` elements; cols must be a multiple of the block size.
constexpr size_t dtype_row_bytes(DType t, int64_t cols) {
    const DTypeBlock b = dtype_block(t);
    return size_t(cols) / b.elems * b.bytes;
}

constexpr std::string_view dtype_name(DType t) {
    switch (t) {
        case DType::F32: return "f32";
        case DType::F16: return "f16";
        case DType::BF16: return "bf16";
        case DType::Q8_0: return "q8_0";
        case DType::Q4_0: return "q4_0";
        case DType::Q4_K: return "q4_k";
        case DType::Q6_K: return "q6_k";
    }
    return "?";
}

inline constexpr DType kAllDTypes[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q8_0,
                                       DType::Q4_0, DType::Q4_K, DType::Q6_K};

}  // namespace kvw
