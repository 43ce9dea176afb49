#pragma once
// Scalar IEEE binary16 and bfloat16 conversions (round-to-nearest-even), usable on host and
// device. The CPU backend's SIMD paths use F16C/AVX instructions; these are the reference.
#include <cstdint>
#include <cstring>

#include "core/math/hd.h"

namespace kvw {

KVW_HD uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
#endif
}

KVW_HD float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
#endif
}

KVW_HD float bf16_to_float(uint16_t h) { return bits_float(uint32_t(h) << 16); }

KVW_HD uint16_t float_to_bf16(float f) {
    uint32_t u = float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}

KVW_HD float fp16_to_float(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        if (mant == 0) return bits_float(sign);
        // subnormal: value = mant * 2^-24
        float v = float(mant) * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    // Infinity, or NaN made quiet with its payload kept, as the F16C instruction does.
    if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13) | (mant ? 0x400000u : 0u));
    return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

KVW_HD uint16_t float_to_fp16(float f) {
    const uint32_t u = float_bits(f);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) return uint16_t(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // qNaN
    if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // overflow -> inf
    if (abs < 0x38800000u) {                                  // subnormal or zero
        if (abs < 0x33000000u) return uint16_t(sign);         // < half of min subnormal
        const uint32_t e = abs >> 23;
        const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126u - e;  // 14..24
        uint32_t r = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1u);
        const uint32_t halfway = 1u << (shift - 1u);
        if (rem > halfway || (rem == halfway && (r & 1u))) ++r;
        return uint16_t(sign | r);
    }
    uint32_t r = abs - 0x38000000u;  // rebias exponent 127 -> 15
    r += 0xfffu + ((r >> 13) & 1u);  // round to nearest even on the 13 dropped bits
    return uint16_t(sign | (r >> 13));
}

}  // namespace kvw
