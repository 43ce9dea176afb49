#pragma once
#include "core/math/hd.h"

namespace kvw {

// The two row loops of grouped-query attention for one query and one K/V head: the `group`
// query heads that share the K/V head read every row once, side by side, instead of once per
// head (docs/ARCHITECTURE.md §5.3). Each head's sums still run in index order, term by term as
// one plain dot product (and one plain weighted sum) per head would: the results do not depend
// on the group size, the lane padding or how rows are blocked.

// Heads computed side by side; the group is padded to a multiple of it.
constexpr int kAttentionLanes = 4;

KVW_HD int attention_lanes(int group) {
    return (group + kAttentionLanes - 1) / kAttentionLanes * kAttentionLanes;
}

// q ([group][hd], head-major) to q_t[d * lanes + h], padding lanes group.. with zeros.
KVW_HD void attention_transpose_queries(const float* q, int group, int hd, int lanes, float* q_t) {
    for (int d = 0; d < hd; ++d)
        for (int h = 0; h < lanes; ++h) q_t[d * lanes + h] = h < group ? q[h * hd + d] : 0.0f;
}

// kAttentionLanes floats in one register where the compiler has vector types (a plain
// array under nvcc's device pass): the lanes are independent heads, so either way each lane's
// arithmetic is the same sequence of float operations.
#if defined(__CUDA_ARCH__)
struct AttentionLaneVec {
    float v[kAttentionLanes];
};
#else
typedef float AttentionLaneVec __attribute__((vector_size(sizeof(float) * kAttentionLanes)));
#endif

// Scores of R rows starting at `first` (see attention_scores).
template <int R>  // 1..4
KVW_HD void attention_score_block(const float* __restrict__ q_t, int lanes, int group,
                                  const float* const* k_rows, int first, int hd, float scale,
                                  float* __restrict__ scores, int stride) {
    for (int l0 = 0; l0 < lanes; l0 += kAttentionLanes) {
        float acc[R][kAttentionLanes] = {};
#if defined(__CUDA_ARCH__)
        for (int d = 0; d < hd; ++d)
            for (int r = 0; r < R; ++r)
                for (int t = 0; t < kAttentionLanes; ++t)
                    acc[r][t] += q_t[d * lanes + l0 + t] * k_rows[first + r][d];
#else
        // Named sums so that they stay in registers (an array of them goes through memory).
        AttentionLaneVec s0 = {}, s1 = {}, s2 = {}, s3 = {};
        const float* k0 = k_rows[first];
        const float* k1 = k_rows[first + (R > 1 ? 1 : 0)];
        const float* k2 = k_rows[first + (R > 2 ? 2 : 0)];
        const float* k3 = k_rows[first + (R > 3 ? 3 : 0)];
        for (int d = 0; d < hd; ++d) {
            AttentionLaneVec qd;
            __builtin_memcpy(&qd, q_t + d * lanes + l0, sizeof qd);
            s0 += qd * k0[d];
            if constexpr (R > 1) s1 += qd * k1[d];
            if constexpr (R > 2) s2 += qd * k2[d];
            if constexpr (R > 3) s3 += qd * k3[d];
        }
        const AttentionLaneVec sums[4] = {s0, s1, s2, s3};
        for (int r = 0; r < R; ++r) __builtin_memcpy(acc[r], &sums[r], sizeof acc[r]);
#endif
        const int heads = group - l0 < kAttentionLanes ? group - l0 : kAttentionLanes;
        for (int t = 0; t < heads; ++t)
            for (int r = 0; r < R; ++r) scores[(l0 + t) * stride + first + r] = acc[r][t] * scale;
    }
}

// scores[h * stride + j] = (Σ_d q_h[d] · k_j[d]) · scale for the group's heads h and rows
// j < rows, q given transposed (attention_transpose_queries), k_rows[j] pointing at the head's
// hd values of row j. Four rows at a time keep independent sums in flight.
KVW_HD void attention_scores(const float* q_t, int lanes, int group, const float* const* k_rows,
                             int rows, int hd, float scale, float* scores, int stride) {
    int j = 0;
    for (; j + 4 <= rows; j += 4)
        attention_score_block<4>(q_t, lanes, group, k_rows, j, hd, scale, scores, stride);
    for (; j < rows; ++j)
        attention_score_block<1>(q_t, lanes, group, k_rows, j, hd, scale, scores, stride);
}

// out[h * hd + d] = Σ_j p[h * stride + j] · v_j[d], rows in order, for the group's heads. Off
// the device, 32 outputs at a time stay in registers across all rows.
KVW_HD void attention_weighted_values(const float* p, int stride, int group,
                                      const float* const* v_rows, int rows, int hd,
                                      float* __restrict__ out) {
    for (int h = 0; h < group; ++h) {
        const float* ph = p + h * stride;
        float* __restrict__ o = out + h * hd;
        int d0 = 0;
#if !defined(__CUDA_ARCH__)
        constexpr int kVecs = 8;
        for (; d0 + kVecs * kAttentionLanes <= hd; d0 += kVecs * kAttentionLanes) {
            AttentionLaneVec acc[kVecs] = {};
            for (int j = 0; j < rows; ++j) {
                const float pj = ph[j];
                const float* v = v_rows[j] + d0;
#pragma GCC unroll 8
                for (int c = 0; c < kVecs; ++c) {
                    AttentionLaneVec vd;
                    __builtin_memcpy(&vd, v + c * kAttentionLanes, sizeof vd);
                    acc[c] += pj * vd;
                }
            }
            __builtin_memcpy(o + d0, acc, sizeof acc);
        }
#endif
        for (int d = d0; d < hd; ++d) {
            float sum = 0.0f;
            for (int j = 0; j < rows; ++j) sum += ph[j] * v_rows[j][d];
            o[d] = sum;
        }
    }
}

}  // namespace kvw
