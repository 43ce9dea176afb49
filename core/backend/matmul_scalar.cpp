#include "core/backend/matmul_kernels.h"

#include "core/math/half.h"

namespace kvw::cpu {

namespace {

float weight_at(const WeightTensor& w, const uint8_t* row, int64_t k) {
    switch (w.dtype) {
        case DType::F32: return reinterpret_cast<const float*>(row)[k];
        case DType::F16: return fp16_to_float(reinterpret_cast<const uint16_t*>(row)[k]);
        case DType::BF16: return bf16_to_float(reinterpret_cast<const uint16_t*>(row)[k]);
    }
    return 0.0f;
}

}  // namespace

void matmul_rows_scalar(const WeightTensor& w, const float* x, int n, float* y, int64_t row_begin,
                        int64_t row_end) {
    const int64_t cols = w.cols;
    for (int64_t r = row_begin; r < row_end; ++r) {
        const uint8_t* row = w.row_ptr(r);
        for (int t = 0; t < n; ++t) {
            const float* xt = x + t * cols;
            float lane[8] = {};
            for (int64_t k = 0; k < cols; ++k) lane[k % 8] += weight_at(w, row, k) * xt[k];
            const float a0 = lane[0] + lane[4], a1 = lane[1] + lane[5];
            const float a2 = lane[2] + lane[6], a3 = lane[3] + lane[7];
            y[t * w.rows + r] = (a0 + a2) + (a1 + a3);
        }
    }
}

}  // namespace kvw::cpu
