#include "core/model/weights.h"

#include <cstring>
#include <stdexcept>
#include <string>

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

WeightTensor row_view(const WeightTensor& w, int64_t first, int64_t count) {
    if (first < 0 || count <= 0 || first + count > w.rows)
        throw std::invalid_argument("row_view: rows " + std::to_string(first) + "+" +
                                    std::to_string(count) + " of " + w.name + " with " +
                                    std::to_string(w.rows));
    WeightTensor v = w;
    v.name = w.name + "[" + std::to_string(first) + ":" + std::to_string(first + count) + "]";
    v.rows = count;
    v.data = w.row_ptr(first);
    return v;
}

std::vector<const WeightTensor*> LayerWeights::tensors() const {
    std::vector<const WeightTensor*> out = {&attn_norm, &wq,     &wk,   &wv,    &wo,
                                            &ffn_norm,  &w_gate, &w_up, &w_down};
    for (const WeightTensor* t : {&bq, &bk, &bv, &q_norm, &k_norm})
        if (t->data) out.push_back(t);
    return out;
}

std::array<size_t, std::size(kAllDTypes)> ModelWeights::bytes_by_dtype() const {
    std::array<size_t, std::size(kAllDTypes)> by{};
    const auto add = [&](const WeightTensor& t) { by[size_t(t.dtype)] += t.bytes(); };
    add(token_embd);
    add(output_norm);
    if (output.data != token_embd.data) add(output);  // tied embeddings count once
    for (const LayerWeights& l : layers) {
        for (const WeightTensor* t : l.tensors()) add(*t);
    }
    return by;
}

size_t ModelWeights::total_bytes() const {
    size_t total = 0;
    for (const size_t b : bytes_by_dtype()) total += b;
    return total;
}

}  // namespace kvw
