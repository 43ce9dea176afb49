#include "core/model/weights.h"

#include <cstring>

#include "core/math/half.h"
#include "core/model/dequant_block.h"

namespace kvw {

void weight_row_to_float(const WeightTensor& w, int64_t row, float* out) {
    const uint8_t* p = w.row_ptr(row);
    switch (w.dtype) {
        case DType::F32: std::memcpy(out, p, size_t(w.cols) * sizeof(float)); return;
        case DType::F16:
            for (int64_t c = 0; c < w.cols; ++c) out[c] = load_fp16_le(p + 2 * c);
            return;
        case DType::BF16:
            for (int64_t c = 0; c < w.cols; ++c)
                out[c] = bf16_to_float(uint16_t(p[2 * c] | (p[2 * c + 1] << 8)));
            return;
        case DType::Q8_0: return dequant_weight_row<DType::Q8_0>(p, w.cols, out);
        case DType::Q4_0: return dequant_weight_row<DType::Q4_0>(p, w.cols, out);
        case DType::Q4_K: return dequant_weight_row<DType::Q4_K>(p, w.cols, out);
        case DType::Q6_K: return dequant_weight_row<DType::Q6_K>(p, w.cols, out);
    }
}

std::array<size_t, std::size(kAllDTypes)> ModelWeights::bytes_by_dtype() const {
    std::array<size_t, std::size(kAllDTypes)> by{};
    const auto add = [&](const WeightTensor& t) { by[size_t(t.dtype)] += t.bytes(); };
    add(token_embd);
    add(output_norm);
    if (output.data != token_embd.data) add(output);  // tied embeddings count once
    for (const LayerWeights& l : layers) {
        for (const WeightTensor* t :
             {&l.attn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.ffn_norm, &l.w_gate, &l.w_up, &l.w_down})
            add(*t);
    }
    return by;
}

size_t ModelWeights::total_bytes() const {
    size_t total = 0;
    for (const size_t b : bytes_by_dtype()) total += b;
    return total;
}

}  // namespace kvw
