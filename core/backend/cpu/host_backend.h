#pragma once
#include <vector>

#include "core/backend/backend.h"
#include "core/backend/cpu/attention_kernels.h"
#include "core/backend/cpu/thread_pool.h"

namespace kvw {

// What the CPU backends share (docs/ARCHITECTURE.md §18): host memory and every op but the
// matrix product, spread over one persistent pool. Each op computes a row with the core/math
// function of its kind in a fixed order, so no result depends on the thread count. CpuBackend
// (the numeric reference) and FastCpuBackend differ only in matmul.
class HostBackend : public Backend {
public:
    // threads == 0: one per hardware thread.
    explicit HostBackend(int threads);

    int threads() const { return pool_.size(); }

    BackendDevice device() const override;
    double measure_read_bandwidth_gbs(size_t bytes) override;

    void* allocate(size_t bytes) override;
    void release(void* p) noexcept override;
    void upload(void* dst, const void* src, size_t bytes) override;
    void download(void* dst, const void* src, size_t bytes) override;
    void copy(void* dst, const void* src, size_t bytes) override;

    void embed(const WeightTensor& table, std::span<const Item> items, float* x) override;
    void rmsnorm(const float* x, const float* weight, int rows, int dim, float eps,
                 float* out) override;
    void add_bias(float* x, const float* bias, int rows, int dim) override;
    void add(float* x, const float* y, size_t count) override;
    void rope(float* x, int rows, int heads, int head_dim, const float* cos, const float* sin,
              RopeLayout layout) override;
    void swiglu(float* gate, const float* up, size_t count) override;
    void kv_round_trip(KvType type, float* rows, int n, int kv_dim, int groups) override;
    // host_attention.cpp
    void attention(const AttentionCall& call) override;
    size_t count_nonfinite(const float* x, size_t rows, size_t width, size_t stride) override;
    // The host's: the CPU reads a cache's rows where they are.
    KvRowDevice& kv_rows() override { return host_row_device(); }

protected:
    // The context's rows decoded to float32 in logical order, in k and v; ctx itself when both
    // are stored as float32 already (no copy on the default path).
    LayerContext decoded_context(const LayerContext& ctx, int kv_dim, int groups,
                                 std::vector<float>& k, std::vector<float>& v);

    ThreadPool pool_;

private:
    // fn(i) for every i < rows, rows split across the pool.
    template <class Fn>
    void for_rows(int64_t rows, Fn&& fn);

    // The fastest attention kernel this CPU runs, chosen once.
    const cpu::AttentionKernel& attention_kernel_ = cpu::best_attention_kernel();
};

}  // namespace kvw
