#pragma once
// Storage types of cached K/V rows and their encode / decode maths, shared by the CPU backend and
// the CUDA kernels (docs/ARCHITECTURE.md §13). A row of kv_dim floats is split into `groups`
// equal groups (one per KV head); int8 and FP8 keep one float scale per group beside the row.
#include <math.h>

#include <cstdint>

#include "core/math/half.h"
#include "core/math/hd.h"

namespace kvw {

enum class KvType : uint8_t { F32, F16, BF16, Int8, Fp8E4M3 };

KVW_HD int kv_type_bytes(KvType t) {
    switch (t) {
        case KvType::F32: return 4;
        case KvType::F16:
        case KvType::BF16: return 2;
        case KvType::Int8:
        case KvType::Fp8E4M3: break;
    }
    return 1;
}

// Int8 and FP8 rows carry one scale per group; the other types none.
KVW_HD bool kv_type_scaled(KvType t) { return t == KvType::Int8 || t == KvType::Fp8E4M3; }

// What encoding a group of values met: values clamped to the format's largest finite value
// (their scaled magnitude rounded beyond it), and NaN inputs.
struct QuantStats {
    uint64_t saturated = 0;
    uint64_t nan_inputs = 0;

    KVW_HD void add(const QuantStats& o) {
        saturated += o.saturated;
        nan_inputs += o.nan_inputs;
    }
};

// ---- FP8 E4M3 (the "fn" variant: bias 7, no infinities, S.1111.111 is NaN, max 448) --------

constexpr float kFp8E4M3Max = 448.0f;
constexpr float kInt8Max = 127.0f;

// The 7 exponent and mantissa bits placed at the top of a float32's (exponent bias 127, so the
// value is 2^-120 of the E4M3 one, subnormal codes landing on float32 subnormals), then scaled
// by the exact 2^120: no branch but NaN's. Needs float32 subnormals (no flush-to-zero).
KVW_HD float e4m3_to_float(uint8_t b) {
    const uint32_t sign = uint32_t(b & 0x80u) << 24;
    if ((b & 0x7fu) == 0x7fu) return bits_float(sign | 0x7fc00000u);
    return bits_float(sign | (uint32_t(b & 0x7fu) << 20)) * 1.329227995784916e36f;  // 2^120
}

// Round to nearest even. Like a plain cast to float8_e4m3fn, NaN, infinities and values that
// round beyond 448 become NaN (sign kept); the quantiser clamps before it gets here.
KVW_HD uint8_t float_to_e4m3(float f) {
    const uint32_t u = float_bits(f);
    const uint8_t sign = uint8_t((u >> 24) & 0x80u);
    const uint32_t abs = u & 0x7fffffffu;
    if (abs >= 0x7f800000u) return uint8_t(sign | 0x7fu);
    if (abs < 0x3c800000u) {  // below 2^-6, the smallest normal: multiples of 2^-9
        const float m = rintf(bits_float(abs) * 512.0f);  // exact scaling, then round to even
        return uint8_t(sign | uint8_t(m));                // m == 8 is the smallest normal
    }
    uint32_t r = abs - 0x3c000000u;  // rebias exponent 127 -> 7
    r += 0x7ffffu + ((r >> 20) & 1u);
    r >>= 20;
    return r > 0x7eu ? uint8_t(sign | 0x7fu) : uint8_t(sign | r);
}

// ---- one group ------------------------------------------------------------------------------

// Largest finite magnitude in the group: NaN and infinities do not set the scale (an infinity
// saturates instead of turning the whole group into NaN).
KVW_HD float finite_amax(const float* x, int n) {
    float amax = 0.0f;
    for (int i = 0; i < n; ++i) {
        const float a = fabsf(x[i]);
        if (a <= 3.402823466e38f && a > amax) amax = a;
    }
    return amax;
}

// Symmetric int8: scale = amax / 127, q = clamp(rint(x / scale), -127, 127). A NaN stores 0.
// A scale that underflows to 0 stores every finite value as 0.
KVW_HD float int8_encode_group(const float* x, int n, int8_t* q, QuantStats& st) {
    const float scale = finite_amax(x, n) / kInt8Max;
    for (int i = 0; i < n; ++i) {
        if (x[i] != x[i]) {
            ++st.nan_inputs;
            q[i] = 0;
            continue;
        }
        float r = rintf(scale > 0.0f ? x[i] / scale : x[i]);
        if (fabsf(r) > kInt8Max) {
            ++st.saturated;
            r = r > 0.0f ? kInt8Max : -kInt8Max;
        }
        q[i] = int8_t(r);
    }
    return scale;
}

// FP8 E4M3: scale = amax / 448, e = e4m3(x / scale); a scaled value that would round beyond 448
// is clamped to ±448 (saturated); a NaN input stays NaN.
KVW_HD float fp8_encode_group(const float* x, int n, uint8_t* e, QuantStats& st) {
    const float scale = finite_amax(x, n) / kFp8E4M3Max;
    for (int i = 0; i < n; ++i) {
        if (x[i] != x[i]) ++st.nan_inputs;
        float t = scale > 0.0f ? x[i] / scale : x[i];
        if (fabsf(t) >= 464.0f) {  // 464: halfway to the next step, which is NaN
            ++st.saturated;
            t = t > 0.0f ? kFp8E4M3Max : -kFp8E4M3Max;
        }
        e[i] = float_to_e4m3(t);
    }
    return scale;
}

// ---- one row --------------------------------------------------------------------------------

// x: kv_dim floats -> out: kv_dim elements of `t`; scales: `groups` floats when t is scaled.
KVW_HD void kv_encode_row(KvType t, const float* x, int kv_dim, int groups, void* out,
                          float* scales, QuantStats& st) {
    const int g = kv_dim / groups;
    for (int i = 0; i < kv_dim; ++i)
        if (x[i] != x[i] && !kv_type_scaled(t)) ++st.nan_inputs;
    switch (t) {
        case KvType::F32: {
            float* o = static_cast<float*>(out);
            for (int i = 0; i < kv_dim; ++i) o[i] = x[i];
            return;
        }
        case KvType::F16: {
            uint16_t* o = static_cast<uint16_t*>(out);
            for (int i = 0; i < kv_dim; ++i) {
                o[i] = float_to_fp16(x[i]);
                if ((o[i] & 0x7fffu) == 0x7c00u && fabsf(x[i]) <= 3.402823466e38f) ++st.saturated;
            }
            return;
        }
        case KvType::BF16: {
            uint16_t* o = static_cast<uint16_t*>(out);
            for (int i = 0; i < kv_dim; ++i) {
                o[i] = float_to_bf16(x[i]);
                if ((o[i] & 0x7fffu) == 0x7f80u && fabsf(x[i]) <= 3.402823466e38f) ++st.saturated;
            }
            return;
        }
        case KvType::Int8:
            for (int h = 0; h < groups; ++h)
                scales[h] = int8_encode_group(x + h * g, g, static_cast<int8_t*>(out) + h * g, st);
            return;
        case KvType::Fp8E4M3:
            for (int h = 0; h < groups; ++h)
                scales[h] = fp8_encode_group(x + h * g, g, static_cast<uint8_t*>(out) + h * g, st);
            return;
    }
}

KVW_HD void kv_decode_row(KvType t, const void* in, const float* scales, int kv_dim, int groups,
                          float* x) {
    const int g = kv_dim / groups;
    switch (t) {
        case KvType::F32: {
            const float* p = static_cast<const float*>(in);
            for (int i = 0; i < kv_dim; ++i) x[i] = p[i];
            return;
        }
        case KvType::F16: {
            const uint16_t* p = static_cast<const uint16_t*>(in);
            for (int i = 0; i < kv_dim; ++i) x[i] = fp16_to_float(p[i]);
            return;
        }
        case KvType::BF16: {
            const uint16_t* p = static_cast<const uint16_t*>(in);
            for (int i = 0; i < kv_dim; ++i) x[i] = bf16_to_float(p[i]);
            return;
        }
        case KvType::Int8: {
            const int8_t* p = static_cast<const int8_t*>(in);
            for (int h = 0; h < groups; ++h)
                for (int i = h * g; i < (h + 1) * g; ++i) x[i] = float(p[i]) * scales[h];
            return;
        }
        case KvType::Fp8E4M3: {
            const uint8_t* p = static_cast<const uint8_t*>(in);
            for (int h = 0; h < groups; ++h)
                for (int i = h * g; i < (h + 1) * g; ++i) x[i] = e4m3_to_float(p[i]) * scales[h];
            return;
        }
    }
}

// Element i of a row stored as `t`, whose scales (when t is scaled) cover group_size elements
// each: the value kv_decode_row writes at x[i]. The CUDA attention reads context rows element by
// element through it, so it needs no decoded copy of the cache.
KVW_HD float kv_decode_value(KvType t, const void* row, const float* scales, int i,
                             int group_size) {
    switch (t) {
        case KvType::F32: return static_cast<const float*>(row)[i];
        case KvType::F16: return fp16_to_float(static_cast<const uint16_t*>(row)[i]);
        case KvType::BF16: return bf16_to_float(static_cast<const uint16_t*>(row)[i]);
        case KvType::Int8:
            return float(static_cast<const int8_t*>(row)[i]) * scales[i / group_size];
        case KvType::Fp8E4M3:
            return e4m3_to_float(static_cast<const uint8_t*>(row)[i]) * scales[i / group_size];
    }
    return 0.0f;
}

}  // namespace kvw
