#pragma once
// One layer's grouped-query causal attention as Transformer::attention computes it, as four
// passes over a scratch of softmax weights: scores (a thread per query × head × row), softmax (a
// thread per query × head), weighted values (a thread per query × head × dimension) and, when
// asked, the attention mass (a thread per row). Each thread reduces alone, in the order the CPU
// attention kernels promise (core/backend/cpu/attention_kernels.h) with the scalar kernel's
// rounding:
//   score_j = (Σ_d q[d]·k_j[d], d increasing) · scale over the rows the query sees, in row order;
//   e_j = exp_nonpositive(score_j − max) (core/math/softmax_exp.h), summed in eight lanes by the
//   rank of j among the rows seen, folded ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)); p_j = e_j·(1/sum);
//   out[d] = Σ_j p_j·v_j[d], j increasing;
//   mass_j = Σ_h (Σ_i p_ihj, queries in order), heads in order (Transformer::forward's order).
// So a device, compiled without FMA contraction, gives the scalar CPU kernel's bits, and the
// host launcher runs the same sequence (attention_passes) as the device.
//
// Context rows are read where the cache keeps them, decoded element by element
// (kv_decode_value, the values kv_decode_row gives), through the layout's row index.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "core/math/hd.h"
#include "core/math/kv_quant.h"
#include "core/math/sliding_window.h"
#include "core/math/softmax_exp.h"
#include "kernels/launch/grid.h"

namespace kvw::cuda {

struct DeviceAttention {
    int rows = 0;  // context rows (may be 0)
    // Stored context rows: physical row p at p · kv_dim elements of k_type / v_type.
    const void* k = nullptr;
    const void* v = nullptr;
    KvType k_type = KvType::F32, v_type = KvType::F32;
    // [physical row][n_kv_heads] for int8 / FP8, else null.
    const float* k_scale = nullptr;
    const float* v_scale = nullptr;
    const int32_t* index = nullptr;              // [rows] physical row of logical row j, or null
    const int32_t* context_positions = nullptr;  // [rows] rope positions (read when window > 0)
    int n = 0;                                   // new items
    const int32_t* positions = nullptr;          // [n] their positions
    const float* q = nullptr;                    // [n][n_heads · head_dim], rotated
    // [n][n_kv_heads · head_dim], as stored (round trip done).
    const float* k_new = nullptr;
    const float* v_new = nullptr;
    float* out = nullptr;      // [n][n_heads · head_dim]
    float* mass = nullptr;     // [rows + n] or null
    float* scratch = nullptr;  // attention_scratch_floats(rows, n, n_heads) floats
    int n_heads = 0, n_kv_heads = 0, head_dim = 0;
    int window = 0;  // sliding window (0: none), core/math/sliding_window.h
    float scale = 1.0f;
};

// The softmax weights of every (query, head) over every row: [n][n_heads][rows + n].
inline size_t attention_scratch_floats(int rows, int n, int n_heads) {
    return size_t(n) * size_t(n_heads) * size_t(rows + n);
}

}  // namespace kvw::cuda

namespace kvw::kern {

// What every pass asks of the attention: which rows a query sees and where their values are.
struct AttentionView {
    cuda::DeviceAttention a;

    KVW_HD int total() const { return a.rows + a.n; }
    KVW_HD int kv_dim() const { return a.n_kv_heads * a.head_dim; }
    KVW_HD int kv_head(int h) const { return h / (a.n_heads / a.n_kv_heads); }

    // Row j (context rows, then the new items) is seen by query i when it is a context row or a
    // new item up to i, and lies in i's sliding window.
    KVW_HD bool sees(int i, int j) const {
        if (j >= a.rows && j - a.rows > i) return false;
        if (a.window <= 0) return true;
        const int32_t key = j < a.rows ? a.context_positions[j] : a.positions[j - a.rows];
        return in_sliding_window(a.positions[i], key, a.window);
    }

    // Element d of KV head g of row j of K (or V).
    KVW_HD float element(bool value, int j, int g, int d) const {
        const int at = g * a.head_dim + d;
        if (j >= a.rows) return (value ? a.v_new : a.k_new)[size_t(j - a.rows) * kv_dim() + at];
        const size_t p = size_t(a.index ? a.index[j] : j);
        const KvType t = value ? a.v_type : a.k_type;
        const float* scales = value ? a.v_scale : a.k_scale;
        const void* row = static_cast<const uint8_t*>(value ? a.v : a.k) +
                          p * size_t(kv_dim()) * size_t(kv_type_bytes(t));
        return kv_decode_value(t, row, scales ? scales + p * size_t(a.n_kv_heads) : nullptr, at,
                               a.head_dim);
    }

    // Query i, head h's weights over the rows.
    KVW_HD float* weights(int i, int h) const {
        return a.scratch + (size_t(i) * a.n_heads + size_t(h)) * size_t(total());
    }
};

struct AttentionScores {
    AttentionView v;

    Launch shape() const { return cover(size_t(v.a.n) * v.a.n_heads * size_t(v.total())); }

    KVW_HD void operator()(const At& at) const {
        const size_t t = at.x(), total = size_t(v.total());
        if (t >= size_t(v.a.n) * v.a.n_heads * total) return;
        const int j = int(t % total), h = int(t / total % size_t(v.a.n_heads));
        const int i = int(t / total / size_t(v.a.n_heads));
        if (!v.sees(i, j)) return;
        const int hd = v.a.head_dim, g = v.kv_head(h);
        const float* q = v.a.q + (size_t(i) * v.a.n_heads + size_t(h)) * size_t(hd);
        float acc = 0.0f;
        for (int d = 0; d < hd; ++d) acc += q[d] * v.element(false, j, g, d);
        v.weights(i, h)[j] = acc * v.a.scale;
    }
};

struct AttentionSoftmax {
    AttentionView v;

    Launch shape() const { return cover(size_t(v.a.n) * v.a.n_heads, 64); }

    KVW_HD void operator()(const At& at) const {
        const size_t t = at.x();
        if (t >= size_t(v.a.n) * v.a.n_heads) return;
        const int i = int(t / size_t(v.a.n_heads)), h = int(t % size_t(v.a.n_heads));
        float* p = v.weights(i, h);
        const int total = v.a.rows + i + 1;  // no later row is seen
        float m = 0.0f;
        bool first = true;
        for (int j = 0; j < total; ++j)
            if (v.sees(i, j) && (first || p[j] > m)) {
                m = p[j];
                first = false;
            }
        float lane[8] = {};
        int rank = 0;
        for (int j = 0; j < total; ++j) {
            if (!v.sees(i, j)) continue;
            p[j] = exp_nonpositive(p[j] - m);
            lane[rank++ % 8] += p[j];
        }
        const float sum = ((lane[0] + lane[4]) + (lane[2] + lane[6])) +
                          ((lane[1] + lane[5]) + (lane[3] + lane[7]));
        const float inv = 1.0f / sum;
        for (int j = 0; j < total; ++j)
            if (v.sees(i, j)) p[j] *= inv;
    }
};

struct AttentionValues {
    AttentionView v;

    Launch shape() const { return cover(size_t(v.a.n) * v.a.n_heads * size_t(v.a.head_dim)); }

    KVW_HD void operator()(const At& at) const {
        const size_t t = at.x(), hd = size_t(v.a.head_dim);
        if (t >= size_t(v.a.n) * v.a.n_heads * hd) return;
        const int d = int(t % hd), h = int(t / hd % size_t(v.a.n_heads));
        const int i = int(t / hd / size_t(v.a.n_heads));
        const int g = v.kv_head(h);
        const float* p = v.weights(i, h);
        float acc = 0.0f;
        for (int j = 0; j < v.a.rows + i + 1; ++j)
            if (v.sees(i, j)) acc += p[j] * v.element(true, j, g, d);
        v.a.out[t] = acc;  // [i][h][d]
    }
};

struct AttentionMass {
    AttentionView v;

    Launch shape() const { return cover(size_t(v.total())); }

    KVW_HD void operator()(const At& at) const {
        const size_t t = at.x();
        if (t >= size_t(v.total())) return;
        const int j = int(t);
        float mass = 0.0f;
        for (int h = 0; h < v.a.n_heads; ++h) {
            float head = 0.0f;
            for (int i = 0; i < v.a.n; ++i)
                if (v.sees(i, j)) head += v.weights(i, h)[j];
            mass += head;
        }
        v.a.mass[j] = mass;
    }
};

// The passes in order, each handed to run (a device launch, or host_launch in the tests).
template <class Run>
void attention_passes(const cuda::DeviceAttention& a, Run&& run) {
    if (a.n_heads <= 0 || a.n_kv_heads <= 0 || a.n_heads % a.n_kv_heads != 0 || a.head_dim <= 0 ||
        a.rows < 0 || a.n < 0)
        throw std::invalid_argument("attention: heads, KV heads or rows out of shape");
    if (a.window > 0 && a.n > 0 && (!a.positions || (a.rows > 0 && !a.context_positions)))
        throw std::invalid_argument("attention: a sliding window needs the rows' positions");
    if (a.n == 0) return;
    const AttentionView view{a};
    run(AttentionScores{view});
    run(AttentionSoftmax{view});
    run(AttentionValues{view});
    if (a.mass) run(AttentionMass{view});
}

}  // namespace kvw::kern
