#pragma once
// Internal to the engine's attention: the per-ISA kernels behind Transformer::attention
// (docs/ARCHITECTURE.md §5.3).
#include <cstddef>
#include <span>
#include <string_view>

namespace kvw::cpu {

// A block of consecutive queries against one K/V head of grouped-query attention. Stream
// s = i · group + h is query i's head h; query i attends rows [0, first_len + i): the context,
// the block's earlier queries and itself.
//
// Every kernel computes, for each stream, in this order and nothing else:
//   score_j = (Σ_d q[d] · k_j[d], d increasing, one multiply-add per term) · scale;
//   m = max_j score_j;  e_j = exp_nonpositive(score_j − m) (the polynomial of
//   attention_tiles.inc);
//   sum = the e_j split into eight lanes by j mod 8, each summed in increasing j, folded
//   ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7));  p_j = e_j · (1 / sum);
//   out[d] = Σ_j p_j · v_j[d], j increasing, one multiply-add per term.
// The SIMD kernels fuse each multiply-add (`fused`), the scalar one rounds twice. A stream's
// numbers depend on nothing else: not on the block size, the group, the lane padding nor the
// thread, so a prefill of N rows followed by decode gives the bits of one pass.
struct AttentionBlock {
    const float* q = nullptr;  // query i, head h: hd floats at q + i · q_stride + h · hd
    size_t q_stride = 0;
    int queries = 0, group = 0, hd = 0;
    int first_len = 0;                     // rows query 0 attends (≥ 1)
    const float* const* k_rows = nullptr;  // first_len + queries − 1 rows: this head's hd values
    const float* const* v_rows = nullptr;
    float scale = 1.0f;
    float* out = nullptr;  // query i, head h: hd floats at out + i · out_stride + h · hd
    size_t out_stride = 0;
    // Scratch the caller owns: p holds streams() · p_stride floats and, after the call, stream
    // s's softmax weights at p[s · p_stride + j] for j < its rows; q_t holds
    // attention_lanes(streams()) · hd floats (the queries side by side).
    float* p = nullptr;
    size_t p_stride = 0;  // ≥ first_len + queries − 1
    float* q_t = nullptr;

    int streams() const { return queries * group; }
    int rows_of(int stream) const { return first_len + stream / group; }
};

// The kernels' vector width: streams sit side by side in vectors of this many lanes, and the
// softmax sums in this many lanes.
constexpr int kAttentionLanes = 8;
// `streams` rounded up to whole vectors.
constexpr int attention_lanes(int streams) {
    return (streams + kAttentionLanes - 1) / kAttentionLanes * kAttentionLanes;
}

using AttentionKernelFn = void (*)(const AttentionBlock& block);

struct AttentionKernel {
    std::string_view name;  // "avx2", "scalar"
    bool (*cpu_has)();
    bool fused;  // whether each multiply-add is rounded once
    AttentionKernelFn fn;
};

// Every kernel built into this program, fastest first; the last (scalar) runs everywhere.
std::span<const AttentionKernel> attention_kernels();
// The first kernel of attention_kernels() this CPU runs.
const AttentionKernel& best_attention_kernel();

}  // namespace kvw::cpu
