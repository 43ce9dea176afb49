#include "kernels/cuda_kv_rows.h"

#include <cstring>
#include <vector>

#include "kernels/cache_kernels.h"
#include "kernels/cuda_check.h"

namespace kvw::cuda {

namespace {

constexpr size_t kAlign = 16;

size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// A plane's n rows in scratch: counters, scales, then the rows' bytes, padded so that the next
// plane's counters start aligned.
size_t plane_bytes(const CachePlane& p, int n) {
    return aligned(size_t(n) *
                   (p.data_bytes() + p.scale_bytes() + (p.saturated ? sizeof(uint32_t) : 0)));
}

}  // namespace

void* CudaKvRows::allocate(size_t bytes) {
    void* p = pool_.take(bytes);
    if (p) KVW_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, stream_));
    return p;
}

// Returns once src may be reused (pageable memory is staged), without waiting for the device
// (DeviceBuffer::copy_from_host).
void CudaKvRows::upload(void* dst, const void* src, size_t bytes) {
    if (bytes) KVW_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_));
}

void CudaKvRows::download(void* dst, const void* src, size_t bytes) const {
    if (!bytes) return;
    KVW_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_));
    KVW_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CudaKvRows::copy(void* dst, const void* src, size_t bytes) {
    if (bytes) KVW_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
}

void CudaKvRows::download_strided(void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
                                  size_t width, size_t rows) const {
    if (!width || !rows) return;
    KVW_CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, rows,
                                     cudaMemcpyDeviceToHost, stream_));
    KVW_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CudaKvRows::write_rows(const CachePlanes& planes, int at, const NewRows& rows, int n,
                            QuantStats* k_stats, QuantStats* v_stats) {
    if (n <= 0) return;
    const size_t row_floats = size_t(n) * size_t(planes.kv[0].kv_dim);
    stats_.reserve(2 * size_t(n) * sizeof(QuantStats));
    QuantStats* k_stats_dev = stats_.as<QuantStats>();
    QuantStats* v_stats_dev = k_stats_dev + n;
    // A forward's K and V are read where the backend computed them; host rows go up first,
    // without a wait (upload). The write waits for the device once, for its statistics: a
    // decode step writes a row per layer.
    const float* k_dev = rows.k;
    const float* v_dev = rows.v;
    if (rows.at == RowsAt::Host) {
        rows_in_.reserve(2 * row_floats * sizeof(float));
        float* const staged = rows_in_.as<float>();
        upload(staged, rows.k, row_floats * sizeof(float));
        upload(staged + row_floats, rows.v, row_floats * sizeof(float));
        k_dev = staged;
        v_dev = staged + row_floats;
    }
    // The layer only names an overflow in the error; RowBuffer's callers checked the rows.
    write_kv_rows(0, planes, k_dev, v_dev, at, n, k_stats_dev, v_stats_dev, stream_);
    const size_t stats_bytes = size_t(n) * sizeof(QuantStats);
    KVW_CUDA_CHECK(
        cudaMemcpyAsync(k_stats, k_stats_dev, stats_bytes, cudaMemcpyDeviceToHost, stream_));
    KVW_CUDA_CHECK(
        cudaMemcpyAsync(v_stats, v_stats_dev, stats_bytes, cudaMemcpyDeviceToHost, stream_));
    KVW_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

CachePlanes CudaKvRows::scratch_planes(const CachePlanes& like, int n) {
    scratch_.reserve(plane_bytes(like.kv[0], n) + plane_bytes(like.kv[1], n));
    uint8_t* const base = scratch_.as<uint8_t>();
    uint8_t* at = base;
    CachePlanes out = like;
    for (CachePlane& p : out.kv) {
        at = base + aligned(size_t(at - base));
        p.capacity = n;
        p.saturated = p.saturated ? reinterpret_cast<uint32_t*>(at) : nullptr;
        if (p.saturated) at += size_t(n) * sizeof(uint32_t);
        p.scales = p.scales ? reinterpret_cast<float*>(at) : nullptr;
        at += size_t(n) * p.scale_bytes();
        p.data = at;
        at += size_t(n) * p.data_bytes();
    }
    return out;
}

void CudaKvRows::move_rows(const CachePlanes& planes, int to, int from, int n) {
    if (n <= 0 || to == from) return;
    const CachePlanes scratch = scratch_planes(planes, n);
    gather_kv_rows(planes, to, planes, nullptr, from, n, &scratch, stream_);
}

void CudaKvRows::copy_rows(const CachePlanes& dst, int to, const CachePlanes& src, int from,
                           int n) {
    if (n > 0) gather_kv_rows(dst, to, src, nullptr, from, n, nullptr, stream_);
}

void CudaKvRows::rerotate_k(const CachePlane& k, std::span<const int> rows,
                            std::span<const int32_t> delta, int head_dim, const RopeParams& rope,
                            QuantStats* stats) {
    if (rows.empty()) return;
    const int n = int(rows.size());
    shift_index_.copy_from_host(rows.data(), rows.size_bytes(), stream_);
    shift_delta_.copy_from_host(delta.data(), delta.size_bytes(), stream_);
    RopeParams on_device = rope;
    if (rope.freq_divisors) {
        divisors_.copy_from_host(rope.freq_divisors, size_t(head_dim / 2) * sizeof(float), stream_);
        on_device.freq_divisors = divisors_.as<float>();
    }
    scratch_.reserve(size_t(n) * size_t(k.kv_dim) * sizeof(float));
    stats_.reserve(size_t(n) * sizeof(QuantStats));
    kshift_k_rows(k, shift_index_.as<int32_t>(), 0, shift_delta_.as<int32_t>(), n, head_dim,
                  on_device, scratch_.as<float>(), stats_.as<QuantStats>(), stream_);
    download(stats, stats_.get(), size_t(n) * sizeof(QuantStats));
}

void CudaKvRows::hash_rows(std::span<const RowHash> streams) const {
    if (streams.empty()) return;
    // One launch for every stream: one block up (planes, run ends, states, and the streams'
    // rows one after another, each part aligned for the next) and the states down.
    const size_t runs = streams.size();
    std::vector<int32_t> rows, ends;
    std::vector<CachePlanes> planes;
    std::vector<Xxh64State> states;
    for (const RowHash& s : streams) {
        for (const CachePlane& p : s.planes.kv) check_cache_plane(p, "hashed");
        for (const int r : s.rows) check_plane_range(s.planes.kv[0], r, 1, "hashed");
        rows.insert(rows.end(), s.rows.begin(), s.rows.end());
        ends.push_back(int32_t(rows.size()));
        planes.push_back(s.planes);
        states.push_back(*s.state);
    }
    if (rows.empty()) return;
    const size_t ends_at = aligned(runs * sizeof(CachePlanes)),
                 states_at = ends_at + aligned(runs * sizeof(int32_t)),
                 rows_at = states_at + aligned(runs * sizeof(Xxh64State));
    std::vector<uint8_t> block(rows_at + rows.size() * sizeof(int32_t));
    std::memcpy(block.data(), planes.data(), runs * sizeof(CachePlanes));
    std::memcpy(block.data() + ends_at, ends.data(), runs * sizeof(int32_t));
    std::memcpy(block.data() + states_at, states.data(), runs * sizeof(Xxh64State));
    std::memcpy(block.data() + rows_at, rows.data(), rows.size() * sizeof(int32_t));
    hash_runs_.copy_from_host(block.data(), block.size(), stream_);
    uint8_t* const on_device = hash_runs_.as<uint8_t>();
    auto* const states_dev = reinterpret_cast<Xxh64State*>(on_device + states_at);
    hash_row_runs(reinterpret_cast<const CachePlanes*>(on_device),
                  reinterpret_cast<const int32_t*>(on_device + rows_at),
                  reinterpret_cast<const int32_t*>(on_device + ends_at), states_dev, int(runs),
                  stream_);
    download(states.data(), states_dev, runs * sizeof(Xxh64State));
    for (size_t i = 0; i < runs; ++i) *streams[i].state = states[i];
}

void CudaKvRows::read_rows(const CachePlane& plane, std::span<const int> rows, float* out) const {
    if (rows.empty()) return;
    const int n = int(rows.size());
    read_index_.copy_from_host(rows.data(), rows.size_bytes(), stream_);
    // The decode body runs over a K and a V plane: the plane is given as both.
    const size_t floats = size_t(n) * size_t(plane.kv_dim);
    decoded_.reserve(2 * floats * sizeof(float));
    decode_kv_rows(CachePlanes{{plane, plane}}, read_index_.as<int32_t>(), 0, n,
                   decoded_.as<float>(), decoded_.as<float>() + floats, stream_);
    download(out, decoded_.get(), floats * sizeof(float));
}

void CudaKvRows::drift_rows(const CachePlanes& planes, std::span<const int> rows,
                            const NewRows& ref, float* k_out, float* v_out) const {
    if (rows.empty()) return;
    for (const CachePlane& p : planes.kv) check_cache_plane(p, "compared");
    for (const int r : rows) check_plane_range(planes.kv[0], r, 1, "compared");
    const int n = int(rows.size());
    const int kv_dim = planes.kv[0].kv_dim;
    const size_t floats = size_t(n) * size_t(kv_dim);
    read_index_.copy_from_host(rows.data(), rows.size_bytes(), stream_);
    decoded_.reserve(2 * floats * sizeof(float));
    float* const k_rows = decoded_.as<float>();
    decode_kv_rows(planes, read_index_.as<int32_t>(), 0, n, k_rows, k_rows + floats, stream_);
    // The reference where a forward left it; host rows go up first.
    drift_.reserve((ref.at == RowsAt::Host ? 2 * floats : 0) * sizeof(float) +
                   2 * size_t(n) * sizeof(float));
    const float* k_ref = ref.k;
    const float* v_ref = ref.v;
    float* numbers = drift_.as<float>();
    if (ref.at == RowsAt::Host) {
        KVW_CUDA_CHECK(cudaMemcpyAsync(numbers, ref.k, floats * sizeof(float),
                                       cudaMemcpyHostToDevice, stream_));
        KVW_CUDA_CHECK(cudaMemcpyAsync(numbers + floats, ref.v, floats * sizeof(float),
                                       cudaMemcpyHostToDevice, stream_));
        k_ref = numbers;
        v_ref = numbers + floats;
        numbers += 2 * floats;
    }
    cuda::drift_rows(k_rows, k_rows + floats, k_ref, v_ref, n, kv_dim, numbers, numbers + n,
                     stream_);
    download(k_out, numbers, size_t(n) * sizeof(float));
    download(v_out, numbers + n, size_t(n) * sizeof(float));
}

}  // namespace kvw::cuda
