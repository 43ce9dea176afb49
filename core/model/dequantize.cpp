#include "core/model/dequantize.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "core/math/dequant.h"
#include "core/math/half.h"
#include "core/model/parallel_ranges.h"

namespace kvw {
namespace {

using BlockFn = void (*)(const uint8_t*, float*);

void f32_block(const uint8_t* b, float* out) { std::memcpy(out, b, 4); }
void f16_block(const uint8_t* b, float* out) { *out = load_fp16_le(b); }
void bf16_block(const uint8_t* b, float* out) {
    *out = bf16_to_float(uint16_t(b[0] | (b[1] << 8)));
}

BlockFn block_decoder(GgufType type) {
    switch (type) {
        case GgufType::F32: return f32_block;
        case GgufType::F16: return f16_block;
        case GgufType::BF16: return bf16_block;
        case GgufType::Q8_0: return dequant_block_q8_0;
        case GgufType::Q4_0: return dequant_block_q4_0;
        case GgufType::Q4_K: return dequant_block_q4_k;
        case GgufType::Q6_K: return dequant_block_q6_k;
    }
    return nullptr;
}

}  // namespace

void dequantize(GgufType type, std::span<const uint8_t> src, std::span<float> out) {
    const GgufBlockLayout layout = gguf_block_layout(type);
    const size_t n_blocks = out.size() / layout.block_elems;
    if (out.size() % layout.block_elems != 0 || src.size() != n_blocks * layout.block_bytes)
        throw std::invalid_argument("dequantize: " + std::to_string(src.size()) + " bytes of " +
                                    std::string(gguf_type_name(type)) + " do not hold " +
                                    std::to_string(out.size()) + " elements");
    const BlockFn decode = block_decoder(type);
    for_each_range(n_blocks, size_t(1) << 16, [&](size_t begin, size_t end) {
        for (size_t b = begin; b < end; ++b)
            decode(src.data() + b * layout.block_bytes, out.data() + b * layout.block_elems);
    });
}

}  // namespace kvw
