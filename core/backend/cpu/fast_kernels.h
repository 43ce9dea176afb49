#pragma once
// Internal to the CPU backend: the kernels of the `cpu:fast` set
// (core/backend/cpu/fast_cpu_backend.h): integer dot products for the block types Q8_0, Q4_0,
// Q4_K and Q6_K, float ones for F16 and BF16.
//
// y[t][r] = Σ_k w[r][k] · x̃[t][k] for rows [row_begin, row_end) and every token t < n, where
// x̃ is x as the set rounds it for w's type (fast_input below), token after token.
//
// Block types. x arrives rounded to int8 blocks (core/math/act_quant.h): ActBlock32 for Q8_0 /
// Q4_0, ActBlock256 for Q4_K / Q6_K, w.cols / 32 or w.cols / 256 blocks per token; x̃ = d · q,
// computed as llama.cpp computes it: integer products of the weight's quants with x's int8
// quants, scaled per block.
//
// Their order, the same on every path of the set (so they give the same bits) and for every
// tile, thread and batch: per weight block, an exact int32 I sums the block's products (Q8_0:
// w · x; Q4_0: (q - 8) · x; Q6_K: scale · (q - 32) · x over its sub-blocks of 16; Q4_K:
// scale · q · x over its sub-blocks of 32; |I| < 2^31 for every type), and one float
// accumulator per output takes the blocks in order: acc = fma(d_w · d_x, float(I), acc), for
// Q4_K then acc = fnmadd(dmin · d_x, float(M), acc) with M = Σ_j min_j · S_j, S_j = Σ x of
// sub-block j (exact too). The paths make I as they like (integer adds in any order give the
// same sum): the tiles (fast_tiles.inc) in eight int32 lanes of four elements per row and
// token, folded across eight rows into one vector so that a float step serves eight outputs;
// the vnni path's batches of kVnniBatchTokens or more (fast_vnni_batch.cpp) with sixteen
// tokens in the lanes of a 512-bit vector, where a float step serves sixteen. (Until session
// 49 the set kept eight float lanes per output, one float step per lane and block: eight times
// the float work in the batches, where it cost a third of Q4_0's prefill.)
//
// F16 and BF16 (w.cols a multiple of 32; other shapes take the reference kernels). Sixteen
// float lanes per output, fed a chunk of 32 elements at a time, chunk after chunk, each product
// fused into its lane:
//   F16: x as it is (float32, not rounded: llama.cpp rounds it to f16, which buys nothing on a
//     CPU with F16C and costs a conversion per x vector); w widened by F16C; lane l takes
//     element l of the chunk, then l + 16: acc_l = fma(w_k, x_k, acc_l).
//   BF16: x rounded to bf16 (round to nearest even; ActChunkBf16, core/math/act_quant.h); lane
//     l takes the pair 2l, 2l + 1 in `vdpbf16ps`'s order (Intel's pseudo-code; checked on the
//     hardware bit for bit, 3.2 million random lanes with subnormals among them, and by
//     test_fast_kernels): acc_l = fma(w_2l+1, x_2l+1, acc_l),
//     then acc_l = fma(w_2l, x_2l, acc_l), the odd element first; two fused steps, not one
//     fused pair. vdpbf16ps treats subnormal inputs as zero and flushes subnormal results to
//     zero whatever MXCSR says, so the BF16 kernels run with MXCSR's DAZ and FTZ set (the final
//     sums too) and restore it after.
// Then the sixteen lanes fold to eight as l + (l + 8) and those are added in the reference's
// order ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)) (matmul_kernels.h). The paths compute F16 and
// BF16 with FMAs (512-bit on the vnni path, two 256-bit vectors on avx-vnni / avx2), the same
// roundings in the same order, so they give the same bits
// for any tile, thread and batch; the vnni-bf16 path computes BF16 with vdpbf16ps, which rounds
// the same way (test_fast_kernels checks the instruction against the kernels). It is taken on
// AMD's Zen 4 only: on the Intel AVX-512 BF16 machine these kernels were built on (12 and 24
// independent chains, thread CPU time) a zmm vdpbf16ps took 0.79 ns (32 products) and a zmm FMA
// 0.19 ns (16), so FMAs were the faster way to the same bits there; Zen 4 runs a zmm FMA as two
// halves, and vdpbf16ps took its BF16 prefill from 80–86 to 90–103 tok/s. The exception: the
// amx path sums BF16 on AMX tiles (tdpbf16ps), in the instruction's own order, which no other
// path reproduces — the same bits for any tile, thread and batch on that path only (Bf16Sums
// below, fast_amx_bf16.cpp).
#include <cstdint>
#include <span>
#include <string_view>

#include "core/model/weights.h"

namespace kvw::cpu {

using FastRowsFn = void (*)(const WeightTensor& w, const void* x, int n, float* y,
                            int64_t row_begin, int64_t row_end);

#if defined(__x86_64__)
// AVX2 + FMA + F16C: vpmaddubsw + vpmaddwd; F16 / BF16 in pairs of 256-bit FMA vectors.
void fast_rows_avx2(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                    int64_t row_end);
// AVX-512 VNNI (with VL, on 256-bit vectors): vpdpbusd for Q8_0 / Q4_0, vpmaddubsw + vpdpwssd
// for the scaled sub-blocks of Q4_K / Q6_K; F16 / BF16 in 512-bit FMA vectors.
void fast_rows_vnni(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                    int64_t row_end);
// The vnni path with BF16 on vdpbf16ps (fast_vnni_bf16.cpp), on CPUs where that is the faster
// way (cpu_prefers_vdpbf16ps): the same bits, a chunk of BF16 in one instruction, not two FMAs.
void fast_rows_vnni_bf16(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                         int64_t row_end);
// The vnni path's batches of the block types from kVnniBatchTokens tokens on: sixteen tokens in
// a 512-bit vector (fast_vnni_batch.cpp), the same bits as the tiles of fast_tiles.inc. False
// (nothing computed) for the other types. From 8 tokens: with session 50's sub-block sums, one
// thread, 512 × 2048, best of four, µs tiles / batch: 8 tokens Q8_0 192 / 119, Q4_0 144 / 136,
// Q4_K 143–212 / 145, Q6_K 146 / 131; 7 tokens mixed (Q6_K 127 / 130); 6 tokens the tiles
// faster for every type (Q8_0 127 / 137). (Session 49 had kept 10.)
inline constexpr int kVnniBatchTokens = 8;
bool fast_batch_vnni(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                     int64_t row_end);
// The vnni path with its batches of the block types on AMX tiles (fast_vnni_batch.cpp), on CPUs
// with AMX-INT8 and AMX-BF16 whose OS grants the tiles (cpu_has_amx): tile products sum a block
// (Q8_0 / Q4_0) or a block's bytes of scale · w (Q4_K / Q6_K) for sixteen rows × sixteen tokens,
// exact integers, so the vnni path's bits; and BF16 on tdpbf16ps for every batch size
// (fast_bf16_amx), the one exception to "the same bits on every path" (below).
void fast_rows_amx(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                   int64_t row_end);
// Those batches (from kVnniBatchTokens tokens on); false (nothing computed) for the other types.
bool fast_batch_amx(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                    int64_t row_end);
// BF16 weights (rows whole chunks of 32) on AMX-BF16 tiles, any n (fast_amx_bf16.cpp).
void fast_bf16_amx(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                   int64_t row_end);
// AVX-VNNI, the VEX form of the same instructions, for CPUs with AVX2 and no AVX-512 (Alder
// Lake and later client cores, Zen 5 desktop): vpdpbusd / vpdpwssd as the vnni path uses them.
void fast_rows_avx_vnni(const WeightTensor& w, const void* x, int n, float* y, int64_t row_begin,
                        int64_t row_end);
#endif

// How a path sums BF16 weights: in sixteen lanes in vdpbf16ps's order (above; the same bits on
// every such path), or by tdpbf16ps on AMX tiles, in the instruction's own order (the amx path,
// fast_amx_bf16.cpp). Every other type gives the same bits on every path.
enum class Bf16Sums { Lanes, Tiles };

struct FastKernel {
    std::string_view name;  // "amx", "vnni-bf16", "vnni", "avx-vnni", "avx2"
    bool (*cpu_has)();
    FastRowsFn fn;
    // The attention kernel of the same vector width (fast_attention.h): those whose scores are
    // summed alike give the same bits.
    std::string_view attention;
    Bf16Sums bf16 = Bf16Sums::Lanes;
};

// Every path built into this program, fastest first (empty off x86-64).
std::span<const FastKernel> fast_kernels();

// What the set multiplies a weight by: x rounded to int8 blocks of 32 or 256 (the block
// types), x rounded to bf16 (ActChunkBf16), or x itself in FloatChunks (F16), tokens
// fast_token_stride apart. `Reference`: the set has no kernel for this weight (F32; F16 and
// BF16 whose rows are not whole chunks of 32), which goes through the reference kernels as it
// is.
enum class FastInput { Reference, Act32, Act256, Bf16, Float };

inline constexpr int64_t kFastChunk = 32;  // elements per chunk of the F16 / BF16 kernels

// Where token t's x starts: t · fast_token_stride(blocks, sizeof(block)) blocks after token 0's,
// each token `blocks` blocks long. A token that fills a multiple of 1 KiB is followed by 256
// bytes of padding: tokens 4 KiB apart (2,048 bf16 or 1,024 floats) put a chunk of every token
// into the same set of the first-level cache, where the tiles' tokens and weight rows (also 4 KiB
// apart) then evict each other (BF16 on vdpbf16ps, 5632 × 2048, 128 tokens, Zen 4: 109 → 150–155
// GFLOP/s padded; docs/ARCHITECTURE.md §5.4).
constexpr int64_t fast_token_stride(int64_t blocks, int64_t block_bytes) {
    return blocks * block_bytes % 1024 == 0 ? blocks + (256 + block_bytes - 1) / block_bytes
                                            : blocks;
}

// x of F16 weights as the kernels read it: a chunk of a token's floats as they are.
struct FloatChunk {
    float q[kFastChunk];
};

constexpr FastInput fast_input(DType d, int64_t cols) {
    switch (d) {
        case DType::Q8_0:
        case DType::Q4_0: return FastInput::Act32;
        case DType::Q4_K:
        case DType::Q6_K: return FastInput::Act256;
        case DType::BF16: return cols % kFastChunk == 0 ? FastInput::Bf16 : FastInput::Reference;
        case DType::F16: return cols % kFastChunk == 0 ? FastInput::Float : FastInput::Reference;
        case DType::F32: return FastInput::Reference;
    }
    return FastInput::Reference;
}

// Whether the fast set has its own kernel for `w` (the others use the reference kernels).
inline bool fast_kernels_handle(const WeightTensor& w) {
    return fast_input(w.dtype, w.cols) != FastInput::Reference;
}

}  // namespace kvw::cpu
