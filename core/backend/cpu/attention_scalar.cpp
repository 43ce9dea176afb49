// The portable attention kernel: attention_tiles.inc over eight plain floats, each
// multiply-add rounded twice.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "core/backend/cpu/attention_kernels.h"
#include "core/math/softmax_exp.h"

#define KVW_SIMD

namespace kvw::cpu {

namespace {

struct Lanes {
    struct V {
        float v[8];
    };

    template <class F>
    static V each(F f) {
        V out;
        for (int l = 0; l < 8; ++l) out.v[l] = f(l);
        return out;
    }

    static V zero() { return set1(0.0f); }
    static V set1(float f) {
        return each([f](int) { return f; });
    }
    static V loadu(const float* p) {
        return each([p](int l) { return p[l]; });
    }
    static void storeu(float* p, V v) { std::copy(v.v, v.v + 8, p); }
    static V load_first(const float* p, int n) {
        return each([p, n](int l) { return l < n ? p[l] : 0.0f; });
    }
    static void store_first(float* p, V v, int n) { std::copy(v.v, v.v + n, p); }
    static V add(V a, V b) {
        return each([&](int l) { return a.v[l] + b.v[l]; });
    }
    static V sub(V a, V b) {
        return each([&](int l) { return a.v[l] - b.v[l]; });
    }
    static V mul(V a, V b) {
        return each([&](int l) { return a.v[l] * b.v[l]; });
    }
    static V fmadd(V a, V b, V c) {
        return each([&](int l) {
            const float product = a.v[l] * b.v[l];  // rounded on its own, then added
            return product + c.v[l];
        });
    }
    static V max(V a, V b) {
        return each([&](int l) { return a.v[l] > b.v[l] ? a.v[l] : b.v[l]; });
    }
    static V floor(V v) {
        return each([&](int l) { return std::floor(v.v[l]); });
    }
    static V pow2(V n) {
        return each([&](int l) {
            if (std::isnan(n.v[l])) return n.v[l];  // exp of NaN: keep it NaN, not a cast of it
            return std::bit_cast<float>(uint32_t(int(n.v[l]) + 127) << 23);
        });
    }
    static V zero_below(V x, float bound, V v) {
        return each([&](int l) { return x.v[l] < bound ? 0.0f : v.v[l]; });
    }
};

}  // namespace

#include "core/backend/cpu/attention_tiles.inc"

void attention_scalar(const AttentionBlock& block) { attend_block(block); }

}  // namespace kvw::cpu
