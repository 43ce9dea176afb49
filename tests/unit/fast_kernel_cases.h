#pragma once
// The weights test_fast_kernels multiplies on the fast set (cpu:fast, core/backend/cpu/
// fast_kernels.h) beside the generated ones of quant_matmul_cases.h: F16 / BF16 and Q8_0 weights
// made here from a fixed LCG, stored as the type's bits and decoded plainly; and the orders
// fast_kernels.h promises, written plainly for one output, that the kernels must match bit for
// bit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/cpu/fast_kernels.h"
#include "core/model/dtype.h"
#include "tests/unit/quant_matmul_cases.h"

namespace kvw::test {

// A [rows][cols] F16 or BF16 weight of random values from a fixed LCG, stored as the type's
// bits and decoded plainly for the reference: bf16 is the upper half of a float32; an f16 is
// (1 + m / 1024) · 2^(e - 15), here with e in 8 .. 18 (normal numbers). `tiny` gives BF16 values
// around 2^-120 and subnormal ones (exponent field 0 .. 7), whose products and partial sums
// fall below float32's normal range.
inline Case float_case(DType type, int64_t rows, int64_t cols, uint32_t seed, bool tiny = false) {
    Case c;
    c.name = std::string(dtype_name(type)) + (tiny ? "_tiny_" : "_") + std::to_string(rows) + "x" +
             std::to_string(cols);
    c.stored = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(rows * cols * 2));
    c.reference.resize(static_cast<size_t>(rows * cols));
    for (size_t i = 0; i < c.reference.size(); ++i) {
        seed = seed * 1664525u + 1013904223u;
        const uint32_t sign = (seed >> 31) & 1u, mantissa = (seed >> 8) & 0x3ffu;
        uint16_t bits;
        if (type == DType::F16) {
            const uint32_t exponent = 8 + (seed >> 18) % 11;
            bits = uint16_t(sign << 15 | exponent << 10 | mantissa);
            const double magnitude = std::ldexp(1.0 + mantissa / 1024.0, int(exponent) - 15);
            c.reference[i] = float(sign ? -magnitude : magnitude);
        } else {
            const uint32_t exponent = tiny ? (seed >> 18) % 8 : 120 + (seed >> 18) % 10;
            bits = uint16_t(sign << 15 | exponent << 7 | (mantissa & 0x7fu));
            const uint32_t wide = uint32_t(bits) << 16;
            std::memcpy(&c.reference[i], &wide, 4);
        }
        std::memcpy(c.stored->data() + 2 * i, &bits, 2);
    }
    c.w = WeightTensor{c.name, type, rows, cols, c.stored->data(), c.stored};
    return c;
}

// A [rows][cols] Q8_0 weight made here: per block of 32 an f16 scale (1 + m / 1024) · 2^(e - 15),
// e in 5 .. 9, and int8 quants in -127 .. 127 from a fixed LCG; the reference is scale · q.
inline Case q8_0_case(int64_t rows, int64_t cols, uint32_t seed) {
    Case c;
    c.name = "q8_0_" + std::to_string(rows) + "x" + std::to_string(cols);
    const int64_t blocks = rows * cols / 32;
    c.stored = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(blocks * 34));
    c.reference.resize(static_cast<size_t>(rows * cols));
    for (int64_t b = 0; b < blocks; ++b) {
        seed = seed * 1664525u + 1013904223u;
        const uint32_t exponent = 5 + (seed >> 20) % 5, mantissa = (seed >> 8) & 0x3ffu;
        const uint16_t bits = uint16_t(exponent << 10 | mantissa);
        const double scale = std::ldexp(1.0 + mantissa / 1024.0, int(exponent) - 15);
        uint8_t* block = c.stored->data() + b * 34;
        std::memcpy(block, &bits, 2);
        for (int i = 0; i < 32; ++i) {
            seed = seed * 1664525u + 1013904223u;
            const int q = int((seed >> 8) % 255) - 127;
            block[2 + i] = uint8_t(int8_t(q));
            c.reference[size_t(b * 32 + i)] = float(scale * q);
        }
    }
    c.w = WeightTensor{c.name, DType::Q8_0, rows, cols, c.stored->data(), c.stored};
    return c;
}

// Every weight the fast set has a kernel for: the data's block types, F16 and BF16 made here
// (the data's F16 / BF16 shapes are not whole chunks of 32 and take the reference kernels):
// rows not a multiple of any tile, eleven chunks a row, and rows of 16384 columns, which a batch
// takes in several passes and chunks of fewer than nine tokens (fast_tiles.inc); and Q8_0 rows
// of 16384 columns, whose layout for the vnni batches holds one vector of sixteen tokens a chunk
// (fast_vnni_batch.cpp), so 33 tokens take three chunks.
inline std::vector<Case> fast_cases() {
    std::vector<Case> cases;
    for (Case& c : load_cases())
        if (cpu::fast_kernels_handle(c.w)) cases.push_back(std::move(c));
    cases.push_back(float_case(DType::F16, 37, 352, 3));
    cases.push_back(float_case(DType::BF16, 37, 352, 4));
    cases.push_back(float_case(DType::F16, 13, 16384, 6));
    cases.push_back(float_case(DType::BF16, 13, 16384, 7));
    cases.push_back(q8_0_case(6, 16384, 8));
    // rows enough for a decode's row blocks to be claimed in several turns (row_blocks.h)
    cases.push_back(q8_0_case(1000, 96, 9));
    cases.push_back(float_case(DType::F16, 555, 352, 10));
    return cases;
}

// The order fast_kernels.h promises for F16 / BF16, written plainly for one output: sixteen
// float lanes fed a chunk of 32 at a time (F16: lane l takes element l, then l + 16; BF16: the
// pair 2l + 1, then 2l, or 2l first when `even_first`), each step one fused multiply-add;
// lanes folded as l + (l + 8); then ((e0+e4)+(e2+e6)) + ((e1+e5)+(e3+e7)).
inline float promised_order_sum(DType type, const float* w, const float* x, int64_t cols,
                                bool even_first = false) {
    float lane[16] = {};
    for (int64_t c = 0; c < cols; c += 32) {
        if (type == DType::F16) {
            for (int h = 0; h < 2; ++h)
                for (int l = 0; l < 16; ++l)
                    lane[l] = std::fma(w[c + 16 * h + l], x[c + 16 * h + l], lane[l]);
        } else {
            for (int l = 0; l < 16; ++l)
                for (const int k : {even_first ? 2 * l : 2 * l + 1, even_first ? 2 * l + 1 : 2 * l})
                    lane[l] = std::fma(w[c + k], x[c + k], lane[l]);
        }
    }
    float e[8];
    for (int l = 0; l < 8; ++l) e[l] = lane[l] + lane[l + 8];
    return ((e[0] + e[4]) + (e[2] + e[6])) + ((e[1] + e[5]) + (e[3] + e[7]));
}

// An IEEE half's value, decoded plainly: sign, five exponent bits, ten mantissa bits.
inline float half_value(const uint8_t* p) {
    const uint32_t bits = uint32_t(p[0]) | uint32_t(p[1]) << 8;
    const int exponent = int(bits >> 10 & 0x1fu);
    const double mantissa = double(bits & 0x3ffu);
    const double magnitude = exponent == 0 ? std::ldexp(mantissa / 1024.0, -14)
                                           : std::ldexp(1.0 + mantissa / 1024.0, exponent - 15);
    return float(bits >> 15 ? -magnitude : magnitude);
}

// The order fast_kernels.h promises for Q8_0 / Q4_0, written plainly for one output: x rounded
// to int8 blocks of 32 (d = max|x| / 127, q = x · (1 / d) to the nearest, ties to even), the
// weight's integer quants (Q8_0: the int8 bytes; Q4_0: low nibbles then high ones, minus 8),
// per block the exact integer sum I, then acc = fma(d_w · d_x, float(I), acc) block after block.
// `per_lane`: the set's order before session 49 instead (eight float lanes of four elements
// each stepped per block, added as ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7))), to show that the
// order shows in the bits.
inline float promised_block_sum(const Case& c, int64_t row, const float* x, bool per_lane = false) {
    const bool q8 = c.w.dtype == DType::Q8_0;
    const int64_t block_bytes = q8 ? 34 : 18;
    float acc = 0.0f, lane[8] = {};
    for (int64_t b = 0; b < c.w.cols / 32; ++b) {
        const uint8_t* block = c.w.row_ptr(row) + b * block_bytes;
        const float* xb = x + b * 32;
        float amax = 0.0f;
        for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(xb[i]));
        const float dx = amax / 127.0f, inverse = dx > 0.0f ? 1.0f / dx : 0.0f;
        int32_t sum[8] = {};
        for (int i = 0; i < 32; ++i) {
            const int xq = int(std::nearbyint(xb[i] * inverse));
            const int wq = q8 ? int(int8_t(block[2 + i]))
                              : int(i < 16 ? block[2 + i] & 0x0f : block[2 + i - 16] >> 4) - 8;
            sum[i / 4] += wq * xq;
        }
        const float scale = half_value(block) * dx;
        if (per_lane) {
            for (int l = 0; l < 8; ++l) lane[l] = std::fma(scale, float(sum[l]), lane[l]);
        } else {
            int32_t total = 0;
            for (int l = 0; l < 8; ++l) total += sum[l];
            acc = std::fma(scale, float(total), acc);
        }
    }
    if (!per_lane) return acc;
    return ((lane[0] + lane[4]) + (lane[2] + lane[6])) +
           ((lane[1] + lane[5]) + (lane[3] + lane[7]));
}

}  // namespace kvw::test
