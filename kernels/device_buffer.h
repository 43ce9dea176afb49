#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "kernels/cuda_check.h"

namespace kvw::cuda {

// One cudaMalloc allocation, freed when the buffer dies; move-only so ownership is never shared.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t bytes) { reserve(bytes); }
    ~DeviceBuffer() { release(); }

    DeviceBuffer(DeviceBuffer&& other) noexcept
        : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            release();
            ptr_ = std::exchange(other.ptr_, nullptr);
            bytes_ = std::exchange(other.bytes_, 0);
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    // Grows to at least `bytes`, dropping the contents: scratch buffers reused call after call
    // reach their working size once instead of allocating per call.
    void reserve(size_t bytes) {
        if (bytes <= bytes_) return;
        release();
        KVW_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
        bytes_ = bytes;
    }

    // Copies ordered after the work already queued on `stream` (a plain cudaMemcpy would run on
    // the legacy stream, unordered with non-blocking streams). The upload returns once `src`
    // may be reused, without waiting for the device: a copy from pageable memory (the only
    // host memory this project uses) returns when its bytes are staged, and the stream's later
    // work sees them. The download returns when the bytes are there.
    void copy_from_host(const void* src, size_t bytes, cudaStream_t stream) {
        reserve(bytes);
        KVW_CUDA_CHECK(cudaMemcpyAsync(ptr_, src, bytes, cudaMemcpyHostToDevice, stream));
    }
    void copy_to_host(void* dst, size_t bytes, cudaStream_t stream) const {
        KVW_CUDA_CHECK(cudaMemcpyAsync(dst, ptr_, bytes, cudaMemcpyDeviceToHost, stream));
        KVW_CUDA_CHECK(cudaStreamSynchronize(stream));
    }

    void* get() const { return ptr_; }
    template <class T>
    T* as() const {
        return static_cast<T*>(ptr_);
    }
    size_t bytes() const { return bytes_; }

private:
    // A destructor must not throw; a failing cudaFree here means the context is already broken
    // and the next checked call reports it.
    void release() noexcept {
        if (ptr_) cudaFree(ptr_);
        ptr_ = nullptr;
        bytes_ = 0;
    }

    void* ptr_ = nullptr;
    size_t bytes_ = 0;
};

}  // namespace kvw::cuda
