#include "kernels/cache_kernels.h"

#include "kernels/launch/device_launch.cuh"

KVW_DEVICE_LAUNCHER(kern::CacheWriteRows)
KVW_DEVICE_LAUNCHER(kern::CacheDecodeRows)
KVW_DEVICE_LAUNCHER(kern::CacheGatherRows)
KVW_DEVICE_LAUNCHER(kern::CacheRingIndex)
KVW_DEVICE_LAUNCHER(kern::CacheKShift)
KVW_DEVICE_LAUNCHER(kern::CacheGistPool)
KVW_DEVICE_LAUNCHER(kern::CacheDrift)
KVW_DEVICE_LAUNCHER(kern::CacheRowHashes)

namespace kvw::cuda {

namespace {

void launch_plan(const kern::CacheGatherPlan& plan, cudaStream_t stream) {
    for (int i = 0; i < plan.steps; ++i) launch(plan.step[i], stream);
}

}  // namespace

void write_kv_rows(int layer, const CachePlanes& planes, const float* k, const float* v, int at,
                   int n, QuantStats* k_stats, QuantStats* v_stats, cudaStream_t stream) {
    launch(kern::cache_write_rows(layer, planes, k, v, at, n, k_stats, v_stats), stream);
}

void decode_kv_rows(const CachePlanes& planes, const int32_t* index, int first, int n, float* k_out,
                    float* v_out, cudaStream_t stream) {
    launch(kern::cache_decode_rows(planes, index, first, n, k_out, v_out), stream);
}

void gather_kv_rows(const CachePlanes& out, int out_first, const CachePlanes& in,
                    const int32_t* index, int in_first, int n, const CachePlanes* scratch,
                    cudaStream_t stream) {
    launch_plan(kern::cache_gather_rows(out, out_first, in, index, in_first, n, scratch), stream);
}

void ring_index(const kern::RingShape& ring, int first, int n, int32_t* index,
                cudaStream_t stream) {
    launch(kern::cache_ring_index(ring, first, n, index), stream);
}

void ring_roll(const CachePlanes& slab, const kern::RingShape& ring, int32_t* index,
               const CachePlanes& scratch, cudaStream_t stream) {
    const kern::CacheRingRoll roll = kern::cache_ring_roll(slab, ring, index, scratch);
    launch(roll.index, stream);
    launch_plan(roll.gather, stream);
}

void kshift_k_rows(const CachePlane& k, const int32_t* index, int first, const int32_t* delta,
                   int n, int head_dim, const RopeParams& rope, float* scratch, QuantStats* stats,
                   cudaStream_t stream) {
    launch(kern::cache_kshift(k, index, first, delta, n, head_dim, rope, scratch, stats), stream);
}

void gist_pool(const float* rows, const int32_t* index, const int32_t* offsets, int gists, int dim,
               float* out, cudaStream_t stream) {
    launch(kern::cache_gist_pool(rows, index, offsets, gists, dim, out), stream);
}

void drift_rows(const float* k_cached, const float* v_cached, const float* k_ref,
                const float* v_ref, int n, int kv_dim, float* k_out, float* v_out,
                cudaStream_t stream) {
    launch(kern::cache_drift(k_cached, v_cached, k_ref, v_ref, n, kv_dim, k_out, v_out), stream);
}

void hash_row_runs(const CachePlanes* planes, const int32_t* rows, const int32_t* ends,
                   Xxh64State* states, int runs, cudaStream_t stream) {
    launch(kern::cache_row_hashes(planes, rows, ends, states, runs), stream);
}

}  // namespace kvw::cuda
