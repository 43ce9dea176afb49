#pragma once
// Internal to the CPU backend: the integer kernels of the `cpu:fast` set
// (core/backend/cpu/fast_cpu_backend.h) for the block types Q8_0, Q4_0, Q4_K and Q6_K.
//
// x arrives rounded to int8 blocks (core/math/act_quant.h): ActBlock32 for Q8_0 / Q4_0,
// ActBlock256 for Q4_K / Q6_K, w.cols / 32 or w.cols / 256 blocks per token, token after token.
// y[t][r] = Σ_k w[r][k] · x̃[t][k] for rows [row_begin, row_end) and every token t < n, where
// x̃ = d · q is the rounded activation, computed as llama.cpp computes it: integer products of the
// weight's quants with x's int8 quants, scaled per block.
//
// The order, the same on every path of the set (so they give the same bits) and for every tile,
// thread and batch: a row is cut into chunks of 32 elements and lane l (of eight) of a chunk holds
// elements 4l .. 4l + 3. Per weight block and lane, an exact int32 I_l sums those elements'
// products (Q4_0: (q - 8) · x; Q6_K: scale · (q - 32) · x over its sub-blocks of 16; Q4_K:
// scale · q · x over its sub-blocks of 32, and M_l = min_l · Σ x of sub-block l). A float lane
// accumulates block after block: acc_l = fma(d_w · d_x, float(I_l), acc_l), for Q4_K then
// acc_l = fma(-(dmin · d_x), float(M_l), acc_l); the lanes are added as the reference adds them
// ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)) (matmul_kernels.h).
#include <cstdint>
#include <span>
#include <string_view>

#include "core/model/weights.h"

namespace kvw::cpu {

using FastRowsFn = void (*)(const WeightTensor& w, const void* x, int n, float* y,
                            int64_t row_begin, int64_t row_end);

#if defined(__x86_64__)
// AVX2 + FMA + F16C: vpmaddubsw + vpmaddwd.
void fast_rows_avx2(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                    int64_t row_end);
// AVX-512 VNNI (with VL, on 256-bit vectors): vpdpbusd for Q8_0 / Q4_0, vpmaddubsw + vpdpwssd
// for the scaled sub-blocks of Q4_K / Q6_K.
void fast_rows_vnni(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                    int64_t row_end);
// AVX-VNNI, the VEX form of the same instructions, for CPUs with AVX2 and no AVX-512 (Alder
// Lake and later client cores, Zen 5 desktop): vpdpbusd / vpdpwssd as the vnni path uses them.
void fast_rows_avx_vnni(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                        int64_t row_end);
#endif

struct FastKernel {
    std::string_view name;  // "vnni", "avx-vnni", "avx2"
    bool (*cpu_has)();
    FastRowsFn fn;
};

// Every path built into this program, fastest first (empty off x86-64).
std::span<const FastKernel> fast_kernels();

// Whether the fast set has integer kernels for weights of type `d` (the others use the
// reference kernels).
constexpr bool fast_kernels_handle(DType d) {
    return d == DType::Q8_0 || d == DType::Q4_0 || d == DType::Q4_K || d == DType::Q6_K;
}

// Elements per rounded activation block for weights of type `d` (32 or 256).
constexpr int act_block_elems(DType d) { return d == DType::Q8_0 || d == DType::Q4_0 ? 32 : 256; }

}  // namespace kvw::cpu
