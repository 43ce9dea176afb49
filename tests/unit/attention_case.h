#pragma once
// Inputs of one layer's attention for the kernel-body tests (test_forward_bodies, and
// test_forward_kernels on a device): a context stored in a K/V type (kv_encode_row) at physical
// rows reached through an optional permutation, rope positions with gaps, and the new items'
// Q/K/V as the forward hands them over (K/V already round-tripped through their storage type).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/cache/kv_storage.h"
#include "core/math/kv_quant.h"
#include "kernels/bodies/attention.h"

namespace kvw::test {

struct AttentionShape {
    int rows, n, n_heads, n_kv_heads, head_dim, window;
    KvType k_type, v_type;
    bool permuted;  // context rows kept out of order, behind a row index
    bool mass;
    float q_scale = 1.0f;  // large: scores far apart, so that some weights underflow to 0
};

struct AttentionInputs {
    AttentionShape s;
    int physical = 0;  // stored rows (more than the context when permuted: some unused)
    std::vector<uint8_t> k, v;
    std::vector<float> k_scale, v_scale;  // [physical][n_kv_heads]; empty when unscaled
    std::vector<int32_t> index;           // [rows]; empty when not permuted
    std::vector<int32_t> context_positions, positions;
    std::vector<float> q, k_new, v_new;

    int kv_dim() const { return s.n_kv_heads * s.head_dim; }
    int q_dim() const { return s.n_heads * s.head_dim; }

    // The attention over these host vectors (the device test swaps in device copies).
    cuda::DeviceAttention view(float* out, float* mass, float* scratch) const {
        cuda::DeviceAttention a;
        a.rows = s.rows;
        a.k = k.data();
        a.v = v.data();
        a.k_type = s.k_type;
        a.v_type = s.v_type;
        a.k_scale = k_scale.empty() ? nullptr : k_scale.data();
        a.v_scale = v_scale.empty() ? nullptr : v_scale.data();
        a.index = index.empty() ? nullptr : index.data();
        a.context_positions = context_positions.data();
        a.n = s.n;
        a.positions = positions.data();
        a.q = q.data();
        a.k_new = k_new.data();
        a.v_new = v_new.data();
        a.out = out;
        a.mass = s.mass ? mass : nullptr;
        a.scratch = scratch;
        a.n_heads = s.n_heads;
        a.n_kv_heads = s.n_kv_heads;
        a.head_dim = s.head_dim;
        a.window = s.window;
        a.scale = 1.0f / std::sqrt(float(s.head_dim));
        return a;
    }
};

// Rows of kv_dim values encoded as `t` (one scale per KV head when scaled) and, in `decoded`,
// decoded back: the cache's bytes and the values the engine reads from them.
inline void store_rows(KvType t, const std::vector<float>& x, int kv_dim, int groups,
                       std::vector<uint8_t>& bytes, std::vector<float>& scales,
                       std::vector<float>& decoded) {
    const size_t n = x.size() / size_t(kv_dim), width = size_t(kv_dim) * kv_type_bytes(t);
    bytes.assign(n * width, 0);
    scales.assign(kv_type_scaled(t) ? n * size_t(groups) : 0, 0.0f);
    decoded.assign(x.size(), 0.0f);
    QuantStats ignored;
    for (size_t r = 0; r < n; ++r) {
        float* sc = scales.empty() ? nullptr : &scales[r * size_t(groups)];
        kv_encode_row(t, &x[r * size_t(kv_dim)], kv_dim, groups, &bytes[r * width], sc, ignored);
        kv_decode_row(t, &bytes[r * width], sc, kv_dim, groups, &decoded[r * size_t(kv_dim)]);
    }
}

// The shape in words, for a failing test's message.
inline std::string shape_tag(const AttentionShape& s) {
    return "rows " + std::to_string(s.rows) + " n " + std::to_string(s.n) + " heads " +
           std::to_string(s.n_heads) + "/" + std::to_string(s.n_kv_heads) + " hd " +
           std::to_string(s.head_dim) + " window " + std::to_string(s.window) + " k " +
           kv_type_name(s.k_type) + " v " + kv_type_name(s.v_type) +
           (s.permuted ? " permuted" : "");
}

inline AttentionInputs make_attention_inputs(const AttentionShape& s, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto random = [&](size_t count, float scale) {
        std::vector<float> out(count);
        for (float& f : out) f = normal(rng) * scale;
        return out;
    };
    AttentionInputs in;
    in.s = s;
    const int kv_dim = in.kv_dim();
    in.physical = s.permuted ? s.rows + 3 : s.rows;
    std::vector<float> decoded;
    store_rows(s.k_type, random(size_t(in.physical) * kv_dim, 1.0f), kv_dim, s.n_kv_heads, in.k,
               in.k_scale, decoded);
    store_rows(s.v_type, random(size_t(in.physical) * kv_dim, 1.0f), kv_dim, s.n_kv_heads, in.v,
               in.v_scale, decoded);
    if (s.permuted) {
        std::vector<int32_t> all(static_cast<size_t>(in.physical));
        std::iota(all.begin(), all.end(), 0);
        std::shuffle(all.begin(), all.end(), rng);
        in.index.assign(all.begin(), all.begin() + s.rows);
    }
    // Positions with gaps (rows evicted between them), the new items after the context.
    int32_t pos = 0;
    for (int j = 0; j < s.rows; ++j) in.context_positions.push_back(pos += 1 + j % 3);
    for (int i = 0; i < s.n; ++i) in.positions.push_back(pos += 1 + i % 2);
    in.q = random(size_t(s.n) * in.q_dim(), s.q_scale);
    std::vector<uint8_t> bytes;
    std::vector<float> scales;
    store_rows(s.k_type, random(size_t(s.n) * kv_dim, 1.0f), kv_dim, s.n_kv_heads, bytes, scales,
               in.k_new);
    store_rows(s.v_type, random(size_t(s.n) * kv_dim, 1.0f), kv_dim, s.n_kv_heads, bytes, scales,
               in.v_new);
    return in;
}

// GQA ratios 1, 4 and 8, every storage type for K and for V, windows that cut and one that does
// not, a permuted context, an empty one, head sizes that are not multiples of 8 or 32.
inline std::vector<AttentionShape> attention_shapes() {
    using T = KvType;
    return {
        {0, 1, 1, 1, 4, 0, T::F32, T::F32, false, true},
        {37, 1, 8, 2, 20, 0, T::F16, T::BF16, true, true},
        {37, 5, 8, 1, 64, 9, T::Int8, T::Fp8E4M3, true, true},
        {13, 6, 3, 3, 12, 1 << 20, T::Fp8E4M3, T::Int8, false, true},
        {0, 7, 4, 1, 36, 3, T::BF16, T::F16, false, false},
        {50, 2, 16, 2, 128, 0, T::Int8, T::Int8, true, true},
        {1, 1, 2, 2, 6, 0, T::F32, T::Fp8E4M3, false, true},
        {21, 3, 4, 4, 16, 0, T::F32, T::F32, true, true, 40.0f},
        // Rows over several chunks of the bodies' sums (kernels/bodies/attention.h), a window
        // that leaves whole chunks unseen, and one that starts inside a chunk.
        {300, 2, 4, 2, 16, 0, T::F16, T::Int8, true, true},
        {200, 3, 2, 1, 8, 70, T::F32, T::Fp8E4M3, false, true},
        {130, 70, 2, 2, 8, 90, T::BF16, T::F32, true, false},
    };
}

}  // namespace kvw::test
