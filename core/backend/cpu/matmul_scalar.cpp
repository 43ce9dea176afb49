#include <vector>

#include "core/backend/cpu/matmul_kernels.h"

namespace kvw::cpu {

void matmul_rows_scalar(const WeightTensor& w, const float* x, int n, float* y, int64_t row_begin,
                        int64_t row_end) {
    const int64_t cols = w.cols;
    thread_local std::vector<float> row;  // one weight row widened to float
    row.resize(size_t(cols));
    for (int64_t r = row_begin; r < row_end; ++r) {
        weight_row_to_float(w, r, row.data());
        for (int t = 0; t < n; ++t) {
            const float* xt = x + t * cols;
            float lane[8] = {};
            for (int64_t k = 0; k < cols; ++k) lane[k % 8] += row[size_t(k)] * xt[k];
            const float a0 = lane[0] + lane[4], a1 = lane[1] + lane[5];
            const float a2 = lane[2] + lane[6], a3 = lane[3] + lane[7];
            y[t * w.rows + r] = (a0 + a2) + (a1 + a3);
        }
    }
}

}  // namespace kvw::cpu
