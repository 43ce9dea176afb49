#pragma once
// The KV cache's kernels (issue 29): every edit of a cache whose rows live on the device. Each
// launcher checks its arguments on the host (std::invalid_argument, std::out_of_range, or
// CapacityExceeded for a write past the capacity), builds its body or bodies with the builder in
// kernels/bodies/cache_*.h, the same function the unit tests host-launch them through, and queues
// them on `stream`. Every pointer is device memory, planes' arrays included; nothing is waited
// for. The host keeps the bookkeeping (positions, ring heads, row maps) and sums the per-row
// QuantStats in row order.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/math/rope.h"
#include "core/math/xxh64.h"
#include "kernels/bodies/cache_decode.h"
#include "kernels/bodies/cache_digest.h"
#include "kernels/bodies/cache_drift.h"
#include "kernels/bodies/cache_gather.h"
#include "kernels/bodies/cache_gist.h"
#include "kernels/bodies/cache_kshift.h"
#include "kernels/bodies/cache_ring.h"
#include "kernels/bodies/cache_write.h"

namespace kvw::cuda {

// FT-022's update: K and V rows [at, at + n) of a layer's planes encoded from k, v ([n][kv_dim]
// floats); row i's QuantStats to k_stats[i], v_stats[i]. Throws CapacityExceeded (naming `layer`,
// the position and the capacity) before anything is queued when the rows do not fit.
void write_kv_rows(int layer, const CachePlanes& planes, const float* k, const float* v, int at,
                   int n, QuantStats* k_stats, QuantStats* v_stats, cudaStream_t stream);

// Rows decoded to floats: row i from physical row index[i], or first + i when index is null.
void decode_kv_rows(const CachePlanes& planes, const int32_t* index, int first, int n, float* k_out,
                    float* v_out, cudaStream_t stream);

// out rows [out_first, out_first + n) take in rows index[i] (in_first + i without an index),
// bytes, scales and clip counters as stored. When in and out are the same planes the rows go
// through `scratch` (same shape, at least n rows), which may be null otherwise.
void gather_kv_rows(const CachePlanes& out, int out_first, const CachePlanes& in,
                    const int32_t* index, int in_first, int n, const CachePlanes* scratch,
                    cudaStream_t stream);

// index[i] = the slab row of ring logical row first + i (a pointer-mode read's gather index).
void ring_index(const kern::RingShape& ring, int first, int n, int32_t* index, cudaStream_t stream);

// Turns the ring so its oldest row sits at the first ring slot (then head = 0 on the host).
// `index`: room for the ring's rows; `scratch`: the slab's shape, as many rows.
void ring_roll(const CachePlanes& slab, const kern::RingShape& ring, int32_t* index,
               const CachePlanes& scratch, cudaStream_t stream);

// The K-shift: K rows (physical rows index[i], or first + i) rotated by delta[i] head by head
// and stored again; rows with delta 0 untouched. rope.freq_divisors, when set, must be device
// memory. scratch: [n][kv_dim] floats; stats[i]: what re-encoding row i met.
void kshift_k_rows(const CachePlane& k, const int32_t* index, int first, const int32_t* delta,
                   int n, int head_dim, const RopeParams& rope, float* scratch, QuantStats* stats,
                   cudaStream_t stream);

// Mean-pooled gists: out[g] = mean of rows[index[offsets[g] .. offsets[g + 1])], [gists][dim].
void gist_pool(const float* rows, const int32_t* index, const int32_t* offsets, int gists, int dim,
               float* out, cudaStream_t stream);

// The drift map's rows: relative_row_error of each cached row ([n][kv_dim], decoded) against
// the reference's, K and V.
void drift_rows(const float* k_cached, const float* v_cached, const float* k_ref,
                const float* v_ref, int n, int kv_dim, float* k_out, float* v_out,
                cudaStream_t stream);

// The state digest's streams (kernels/bodies/cache_digest.h): run r feeds the stored rows
// rows[ends[r - 1] .. ends[r]) of planes[r] to states[r], which it goes on from and is left in.
// The planes (checked by the caller) and rows are device memory like the rest.
void hash_row_runs(const CachePlanes* planes, const int32_t* rows, const int32_t* ends,
                   Xxh64State* states, int runs, cudaStream_t stream);

// Each body on the device, as host_launch runs it on the CPU (KVW_DEVICE_LAUNCHER).
void launch(const kern::CacheWriteRows& body, cudaStream_t stream);
void launch(const kern::CacheDecodeRows& body, cudaStream_t stream);
void launch(const kern::CacheGatherRows& body, cudaStream_t stream);
void launch(const kern::CacheRingIndex& body, cudaStream_t stream);
void launch(const kern::CacheKShift& body, cudaStream_t stream);
void launch(const kern::CacheGistPool& body, cudaStream_t stream);
void launch(const kern::CacheDrift& body, cudaStream_t stream);
void launch(const kern::CacheRowHashes& body, cudaStream_t stream);

}  // namespace kvw::cuda
