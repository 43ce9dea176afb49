#pragma once
#include <cstddef>
#include <unordered_map>
#include <vector>

namespace kvw::cuda {

// Device memory handed out again instead of freed (docs/ARCHITECTURE.md §18). Every forward
// pass allocates its activations and frees them at the end; cudaFree waits for the whole device
// and cudaMalloc is slow, and a decode step paid both a dozen times. A block given back is kept
// by its size, up to `max_cached` bytes in all, and handed to the next request of that size.
// Safe for one stream: work queued after a block is taken again runs after the work queued while
// it was held.
class DevicePool {
public:
    explicit DevicePool(size_t max_cached) : max_cached_(max_cached) {}
    ~DevicePool() { free_cached(); }
    DevicePool(const DevicePool&) = delete;
    DevicePool& operator=(const DevicePool&) = delete;

    // `bytes` of device memory (null for 0). Throws std::runtime_error naming the size when the
    // device has no room even after the cached blocks are freed.
    void* take(size_t bytes);
    // A block take() returned, or null.
    void give(void* p) noexcept;
    size_t cached_bytes() const { return cached_; }

private:
    void free_cached() noexcept;

    size_t max_cached_;
    size_t cached_ = 0;
    std::unordered_map<void*, size_t> sizes_;              // every block taken and not freed
    std::unordered_map<size_t, std::vector<void*>> free_;  // blocks given back, by size
};

}  // namespace kvw::cuda
