#pragma once
// Float64 attention written plainly from the rule (causal, sliding window, grouped-query heads)
// over an AttentionInputs' rows decoded with kv_decode_row: what the attention tests
// (test_forward_bodies, test_fast_attention) measure the kernels against.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/math/kv_quant.h"
#include "tests/unit/attention_case.h"

namespace kvw::test {

// The float64 softmax weights and outputs of causal GQA attention over the inputs' decoded rows.
struct AttentionReference {
    std::vector<double> out, mass;
    std::vector<std::vector<double>> p;  // [i · n_heads + h][row]: 0 where not seen
    // With half scores (below), per query and head: how far from the exact sum of the rounded
    // products a score summed in half precision can be, for its largest row:
    // γ_hd · max_j Σ_d |q'_d · k'_j[d]|, γ_n = n·u / (1 − n·u), u = 2^-11 (Higham's bound for a
    // sum of n products rounded to nearest).
    std::vector<double> score_bound;
};

// How the scores' inputs are taken: as they are (score = (q · k) · scale), or as the `cpu:fast`
// avx512fp16 kernel takes them (core/backend/cpu/fast_attention.h): q' = half(float(q · scale))
// and k' = half(k), score = q' · k' summed exactly.
enum class ScoreInputs { Exact, Halves };

// x rounded to the nearest IEEE binary16 value, ties to even (±inf past its largest, 65504).
inline double to_half(float x) {
    const double a = std::abs(double(x));
    if (std::isnan(a)) return a;
    if (!(a < 65520.0)) return std::copysign(std::numeric_limits<double>::infinity(), double(x));
    int e = 0;
    std::frexp(a, &e);  // a = f · 2^e, f in [0.5, 1): a half's step there is 2^(e − 11)
    const double step = std::ldexp(1.0, std::max(e - 1, -14) - 10);    // subnormals: 2^−24
    return std::copysign(std::nearbyint(a / step) * step, double(x));  // ties to even
}

// Context rows decoded in logical order with kv_decode_row, then the new items: [rows + n][kv_dim].
inline std::vector<float> all_rows(const AttentionInputs& in, bool value) {
    const int kv_dim = in.kv_dim(), groups = in.s.n_kv_heads;
    const KvType t = value ? in.s.v_type : in.s.k_type;
    const std::vector<uint8_t>& bytes = value ? in.v : in.k;
    const std::vector<float>& scales = value ? in.v_scale : in.k_scale;
    std::vector<float> rows(size_t(in.s.rows + in.s.n) * kv_dim);
    for (int j = 0; j < in.s.rows; ++j) {
        const size_t p = size_t(in.index.empty() ? j : in.index[size_t(j)]);
        kv_decode_row(t, &bytes[p * size_t(kv_dim) * kv_type_bytes(t)],
                      scales.empty() ? nullptr : &scales[p * size_t(groups)], kv_dim, groups,
                      &rows[size_t(j) * kv_dim]);
    }
    const std::vector<float>& fresh = value ? in.v_new : in.k_new;
    std::copy(fresh.begin(), fresh.end(), rows.begin() + ptrdiff_t(in.s.rows) * kv_dim);
    return rows;
}

// The rows query i sees, in row order: written from the rule (causal, sliding window), not
// from the body.
inline std::vector<int> seen_rows(const AttentionInputs& in, int i) {
    std::vector<int> seen;
    const int64_t at = in.positions[size_t(i)];
    for (int j = 0; j < in.s.rows + i + 1; ++j) {
        const int64_t key =
            j < in.s.rows ? in.context_positions[size_t(j)] : in.positions[size_t(j - in.s.rows)];
        if (in.s.window <= 0 || at - key < in.s.window) seen.push_back(j);
    }
    return seen;
}

inline AttentionReference reference_attention(const AttentionInputs& in,
                                              ScoreInputs inputs = ScoreInputs::Exact) {
    const auto& s = in.s;
    const int hd = s.head_dim, group = s.n_heads / s.n_kv_heads, total = s.rows + s.n;
    const std::vector<float> k = all_rows(in, false), v = all_rows(in, true);
    const float scale_f = 1.0f / std::sqrt(float(hd));
    const double scale = double(scale_f);
    const bool halves = inputs == ScoreInputs::Halves;
    const double u = std::ldexp(1.0, -11), gamma = hd * u / (1.0 - hd * u);
    AttentionReference r;
    r.out.assign(size_t(s.n) * in.q_dim(), 0.0);
    r.mass.assign(size_t(total), 0.0);
    for (int i = 0; i < s.n; ++i) {
        const std::vector<int> seen = seen_rows(in, i);
        for (int h = 0; h < s.n_heads; ++h) {
            const int g = h / group;
            std::vector<double> p(size_t(total), 0.0);
            double max = -std::numeric_limits<double>::infinity(), widest = 0.0;
            for (int j : seen) {
                double dot = 0.0, size = 0.0;
                for (int d = 0; d < hd; ++d) {
                    const float qd = in.q[size_t(i) * in.q_dim() + size_t(h) * hd + d];
                    const float kd = k[size_t(j) * in.kv_dim() + size_t(g) * hd + d];
                    const double term =
                        halves ? to_half(qd * scale_f) * to_half(kd) : double(qd) * double(kd);
                    dot += term;
                    size += std::abs(term);
                }
                p[size_t(j)] = halves ? dot : dot * scale;
                max = std::max(max, p[size_t(j)]);
                widest = std::max(widest, size);
            }
            r.score_bound.push_back(gamma * widest);
            double sum = 0.0;
            for (int j : seen) sum += (p[size_t(j)] = std::exp(p[size_t(j)] - max));
            for (int j : seen) {
                p[size_t(j)] /= sum;
                r.mass[size_t(j)] += p[size_t(j)];
                for (int d = 0; d < hd; ++d)
                    r.out[size_t(i) * in.q_dim() + size_t(h) * hd + d] +=
                        p[size_t(j)] * double(v[size_t(j) * in.kv_dim() + size_t(g) * hd + d]);
            }
            r.p.push_back(std::move(p));
        }
    }
    return r;
}

}  // namespace kvw::test
