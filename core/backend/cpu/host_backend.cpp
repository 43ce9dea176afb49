#include "core/backend/cpu/host_backend.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "core/backend/cpu/memory_bandwidth.h"
#include "core/math/kv_quant.h"
#include "core/math/nonfinite.h"
#include "core/math/rmsnorm.h"
#include "core/math/rope.h"
#include "core/math/swiglu.h"

namespace kvw {

namespace {

// Element-wise ops work in pieces of this many floats: one piece per pool chunk at most, so a
// decode step's few thousand elements stay on the calling thread.
constexpr int64_t kElementPiece = 4096;

}  // namespace

HostBackend::HostBackend(int threads) : pool_(threads) {}

BackendDevice HostBackend::device() const {
    return {"host CPU, " + std::to_string(threads()) + (threads() == 1 ? " thread" : " threads"), 0,
            0};
}

double HostBackend::measure_read_bandwidth_gbs(size_t bytes) {
    return kvw::measure_read_bandwidth_gbs(bytes, threads());
}

template <class Fn>
void HostBackend::for_rows(int64_t rows, Fn&& fn) {
    pool_.parallel_for(rows, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) fn(i);
    });
}

void* HostBackend::allocate(size_t bytes) {
    if (bytes == 0) return nullptr;
    // 64-byte aligned, as the SIMD kernels like their rows.
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) throw std::bad_alloc();
    return p;
}

void HostBackend::release(void* p) noexcept { std::free(p); }

void HostBackend::upload(void* dst, const void* src, size_t bytes) {
    if (bytes) std::memcpy(dst, src, bytes);
}

void HostBackend::download(void* dst, const void* src, size_t bytes) {
    if (bytes) std::memcpy(dst, src, bytes);
}

void HostBackend::copy(void* dst, const void* src, size_t bytes) {
    if (bytes) std::memmove(dst, src, bytes);
}

void HostBackend::embed(const WeightTensor& table, std::span<const Item> items, float* x) {
    const size_t width = size_t(table.cols);
    for (size_t i = 0; i < items.size(); ++i) {
        const Item& item = items[i];
        float* row = x + i * width;
        if (item.token >= 0)
            weight_row_to_float(table, item.token, row);
        else
            std::copy(item.embedding.begin(), item.embedding.end(), row);
    }
}

void HostBackend::rmsnorm(const float* x, const float* weight, int rows, int dim, float eps,
                          float* out) {
    const size_t d = size_t(dim);
    for_rows(rows, [&](int64_t i) {
        kvw::rmsnorm(x + size_t(i) * d, weight, dim, eps, out + size_t(i) * d);
    });
}

void HostBackend::add_bias(float* x, const float* bias, int rows, int dim) {
    const size_t d = size_t(dim);
    for_rows(rows, [&](int64_t i) {
        float* row = x + size_t(i) * d;
        for (size_t j = 0; j < d; ++j) row[j] += bias[j];
    });
}

void HostBackend::add(float* x, const float* y, size_t count) {
    const int64_t pieces = (int64_t(count) + kElementPiece - 1) / kElementPiece;
    for_rows(pieces, [&](int64_t p) {
        const size_t end = std::min(count, size_t(p + 1) * kElementPiece);
        for (size_t j = size_t(p) * kElementPiece; j < end; ++j) x[j] += y[j];
    });
}

size_t HostBackend::count_nonfinite(const float* x, size_t rows, size_t width, size_t stride) {
    size_t n = 0;
    for (size_t r = 0; r < rows; ++r)
        for (size_t i = 0; i < width; ++i) n += is_nonfinite(x[r * stride + i]) ? 1 : 0;
    return n;
}

void HostBackend::rope(float* x, int rows, int heads, int head_dim, const float* cos,
                       const float* sin, RopeLayout layout) {
    const size_t half = size_t(head_dim / 2);
    const size_t stride = size_t(heads) * size_t(head_dim);
    for_rows(rows, [&](int64_t i) {
        for (int h = 0; h < heads; ++h)
            rope_apply(x + size_t(i) * stride + size_t(h) * head_dim, head_dim,
                       cos + size_t(i) * half, sin + size_t(i) * half, layout);
    });
}

void HostBackend::swiglu(float* gate, const float* up, size_t count) {
    const int64_t pieces = (int64_t(count) + kElementPiece - 1) / kElementPiece;
    for_rows(pieces, [&](int64_t p) {
        const size_t begin = size_t(p) * kElementPiece;
        const size_t end = std::min(count, begin + kElementPiece);
        kvw::swiglu(gate + begin, up + begin, int(end - begin), gate + begin);
    });
}

void HostBackend::kv_round_trip(KvType type, float* rows, int n, int kv_dim, int groups) {
    if (type == KvType::F32) return;
    const size_t d = size_t(kv_dim);
    for_rows(n, [&](int64_t i) {
        thread_local std::vector<uint8_t> code;
        thread_local std::vector<float> scales;
        code.resize(d * size_t(kv_type_bytes(type)));
        scales.resize(size_t(groups));
        QuantStats ignored;  // the cache counts them when it stores the rows
        float* row = rows + size_t(i) * d;
        kv_encode_row(type, row, kv_dim, groups, code.data(), scales.data(), ignored);
        kv_decode_row(type, code.data(), scales.data(), kv_dim, groups, row);
    });
}

}  // namespace kvw
