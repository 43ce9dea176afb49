#include "kernels/device_pool.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace kvw::cuda {

namespace {

// Requests are rounded up so that sizes that differ by a few bytes share blocks.
constexpr size_t kGranule = 512;

}  // namespace

void* DevicePool::take(size_t bytes) {
    if (bytes == 0) return nullptr;
    const size_t size = (bytes + kGranule - 1) / kGranule * kGranule;
    if (auto it = free_.find(size); it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        cached_ -= size;
        return p;
    }
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, size);
    if (err != cudaSuccess) {  // the cached blocks may be what fills the device
        cudaGetLastError();
        free_cached();
        err = cudaMalloc(&p, size);
    }
    if (err != cudaSuccess) {
        cudaGetLastError();
        throw std::runtime_error("cuda backend: cannot allocate " + std::to_string(bytes) +
                                 " bytes of device memory: " + cudaGetErrorString(err));
    }
    sizes_[p] = size;
    return p;
}

void DevicePool::give(void* p) noexcept {
    if (!p) return;
    const auto it = sizes_.find(p);
    if (it == sizes_.end()) return;  // not ours: nothing to do, as cudaFree(null)
    const size_t size = it->second;
    if (cached_ + size > max_cached_) {
        sizes_.erase(it);
        cudaFree(p);
        return;
    }
    free_[size].push_back(p);
    cached_ += size;
}

void DevicePool::free_cached() noexcept {
    for (auto& [size, blocks] : free_)
        for (void* p : blocks) {
            sizes_.erase(p);
            cudaFree(p);
        }
    free_.clear();
    cached_ = 0;
}

}  // namespace kvw::cuda
