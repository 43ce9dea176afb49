#pragma once
#include <cuda_runtime.h>

#include "core/cache/kv_row_device.h"
#include "kernels/device_buffer.h"
#include "kernels/device_pool.h"

namespace kvw::cuda {

// A cache's rows in the device's memory (docs/ARCHITECTURE.md §18): the CUDA backend's
// KvRowDevice. Memory comes from the backend's pool, every op is queued on the backend's stream
// (so it runs in order with the forward's kernels), and the edits are the cache kernels of
// kernels/cache_kernels.h: nothing of a row crosses to the host but what a read or a download
// asks for, and the per-row statistics a write returns.
class CudaKvRows final : public KvRowDevice {
public:
    CudaKvRows(DevicePool& pool, cudaStream_t stream) : pool_(pool), stream_(stream) {}

    std::string_view name() const override { return "cuda"; }
    void* allocate(size_t bytes) override;
    void release(void* p) noexcept override { pool_.give(p); }
    void upload(void* dst, const void* src, size_t bytes) override;
    void download(void* dst, const void* src, size_t bytes) const override;
    void copy(void* dst, const void* src, size_t bytes) override;
    void download_strided(void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
                          size_t width, size_t rows) const override;

    void write_rows(const CachePlanes& planes, int at, const NewRows& rows, int n,
                    QuantStats* k_stats, QuantStats* v_stats) override;
    void move_rows(const CachePlanes& planes, int to, int from, int n) override;
    void copy_rows(const CachePlanes& dst, int to, const CachePlanes& src, int from,
                   int n) override;
    void rerotate_k(const CachePlane& k, std::span<const int> rows, std::span<const int32_t> delta,
                    int head_dim, const RopeParams& rope, QuantStats* stats) override;
    void hash_rows(std::span<const RowHash> streams) const override;
    void read_rows(const CachePlane& plane, std::span<const int> rows, float* out) const override;
    void drift_rows(const CachePlanes& planes, std::span<const int> rows, const NewRows& ref,
                    float* k_out, float* v_out) const override;

private:
    // Planes of `like`'s shape with room for n rows, in scratch_ (a move goes through them).
    CachePlanes scratch_planes(const CachePlanes& like, int n);

    DevicePool& pool_;
    cudaStream_t stream_;
    DeviceBuffer rows_in_;      // write_rows: new K then V rows from the host
    DeviceBuffer stats_;        // write_rows: each row's statistics, K then V
    DeviceBuffer scratch_;      // move_rows: the rows on their way; rerotate_k: decoded rows
    DeviceBuffer shift_index_;  // rerotate_k: the rows, their deltas, the frequency divisors
    DeviceBuffer shift_delta_;
    DeviceBuffer divisors_;
    mutable DeviceBuffer hash_runs_;   // hash_rows: the streams' planes, run ends, states, rows
    mutable DeviceBuffer read_index_;  // read_rows: the physical rows read
    mutable DeviceBuffer decoded_;     // read_rows, drift_rows: the rows decoded, K then V
    mutable DeviceBuffer drift_;       // drift_rows: host reference rows, then the numbers
};

}  // namespace kvw::cuda
