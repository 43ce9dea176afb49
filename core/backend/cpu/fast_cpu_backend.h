#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "core/backend/cpu/fast_attention.h"
#include "core/backend/cpu/host_backend.h"
#include "core/math/act_quant.h"

namespace kvw {

// `cpu:fast`: the CPU kernel set that rounds activations as llama.cpp does, for speed. For
// Q8_0 / Q4_0 weights x is rounded to int8 per 32 (Q8_0-style), for Q4_K / Q6_K per 256 with
// sums per 16 (Q8_K-style), both with a float32 scale (core/math/act_quant.h), and multiplied
// in integers; for BF16 weights x is rounded to bf16 (round to nearest even) and multiplied in
// vdpbf16ps's order with FMAs, or on AMX tiles in tdpbf16ps's; F16 weights multiply x as it is
// (float32) in sixteen lanes (core/backend/cpu/fast_kernels.h). F32 weights, and F16 / BF16 ones
// whose rows are not whole chunks of 32, go through the reference kernels as they are. Each token
// is rounded once per product and reused for every row. Attention reads each chunk of 64 K/V rows
// once for every head of up to 16 queries, in its own order (core/backend/cpu/fast_attention.h),
// except in a layer with a sliding window, where it is the reference's.
//
// Not the numeric reference (that is `cpu`, cpu_backend.h): its results differ from the
// reference's by the rounding of x (about 2^-8 of each element for int8 and bf16) and, for
// F16 / BF16, by the order of the sums. It is deterministic all the same: the same bits for any
// thread count and any batch split, and the same bits on each of its paths (AMX, AVX-512 VNNI,
// AVX-VNNI, AVX2; the attention on AVX-512 or AVX2), so on every machine with AVX2 — except
// BF16 weights on the amx path, summed by AMX tiles in an order no other path reproduces
// (cpu::Bf16Sums): numeric_set() tells the two apart.
class FastCpuBackend final : public HostBackend {
public:
    static constexpr std::string_view kName = "cpu:fast";

    // `path` names one of cpu::fast_kernels() ("amx", "vnni-bf16", "vnni", "avx-vnni", "avx2";
    // std::invalid_argument when unknown or when this CPU lacks it), which picks the attention
    // kernel too; empty picks the fastest this CPU runs.
    explicit FastCpuBackend(int threads = 0, std::string_view path = {});

    std::string_view name() const override { return kName; }
    // the host's, naming the path ("host CPU, 2 threads, amx kernels"): which kernels a
    // benchmark ran (`kvw bench decode`, `kvw info`)
    BackendDevice device() const override;
    void matmul(const WeightTensor& w, const float* x, int n, float* y) override;
    // fast_cpu_attention.cpp
    void attention(const AttentionCall& call) override;

    std::string_view path() const { return path_name_; }

    // Whether this CPU runs any path of the set; otherwise `why` says what it lacks.
    static bool available(std::string& why);
    // The numbers `cpu:fast` computes on this machine (its fastest path), for replays
    // (backend_registry.h, numeric_set): "cpu:fast", with "+tdpbf16ps" where BF16 is summed on
    // AMX tiles and "+fp16-scores" where the attention sums its scores in halves (the amx path:
    // "cpu:fast+tdpbf16ps+fp16-scores"). Requires available().
    static std::string numeric_set();

private:
    void (*fast_)(const WeightTensor&, const void*, int, float*, int64_t, int64_t);
    std::string_view path_name_;
    void (*reference_)(const WeightTensor&, const float*, int, float*, int64_t, int64_t);
    // x's int8 rounding (core/math/act_quant.h), on AVX-512 where the CPU has it: the same bits
    void (*round32_)(const float*, int64_t, ActBlock32*) = round_act_row_32;
    void (*round256_)(const float*, int64_t, ActBlock256*) = round_act_row_256;
    // The path's attention kernel (cpu::FastKernel::attention).
    const cpu::FastAttentionKernel* fast_attention_ = nullptr;
};

}  // namespace kvw
