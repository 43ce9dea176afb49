// AVX2/FMA/F16C matmul kernel: the tiles of matmul_tiles.inc over eight-float vectors, one token
// per vector. Only these functions carry the target attribute, so the rest of the program stays
// portable; CpuBackend calls them after checking the CPU at run time.
#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "core/backend/cpu/matmul_kernels.h"
#include "core/math/dequant.h"

#define KVW_SIMD __attribute__((target("avx2,fma,f16c")))

namespace kvw::cpu {

namespace {

#include "core/backend/cpu/matmul_lanes8.inc"

struct Simd {
    using Batch = Lanes8;
    // 16 registers: 4 x 3 accumulators + 3 x + 1 weight. One token: 4 rows (`groups` apart,
    // matmul_tiles.inc; on Zen 4 F16 / BF16 decode 14–17 → 16–21 tok/s against 8)
    static constexpr int kDecodeRows = 4, kBatchRows = 4, kBatchVectors = 3;
    // block types: 4 rows stream at once for one token; the batched tile (2 x 3) holds R·G
    // accumulators, a sub-block's widened quants, a weight vector and its factors
    static constexpr int kBlockDecodeRows = 4, kBlockBatchRows = 2, kBlockBatchVectors = 3;
};

}  // namespace

#include "core/backend/cpu/matmul_tiles.inc"

void matmul_rows_avx2(const WeightTensor& w, const float* x, int n, float* y, int64_t row_begin,
                      int64_t row_end) {
    matmul_rows_any(w, x, n, y, row_begin, row_end);
}

}  // namespace kvw::cpu

#endif  // __x86_64__
