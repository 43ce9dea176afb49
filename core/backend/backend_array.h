#pragma once
#include <cstddef>
#include <utility>

#include "core/backend/backend.h"

namespace kvw {

// `count` values of T in a backend's memory, released with the array. Move-only: one owner.
template <class T>
class BackendArray {
public:
    BackendArray() = default;
    BackendArray(Backend& backend, size_t count)
        : backend_(&backend),
          data_(static_cast<T*>(backend.allocate(count * sizeof(T)))),
          count_(count) {}
    // The host values uploaded.
    BackendArray(Backend& backend, const T* values, size_t count) : BackendArray(backend, count) {
        backend.upload(data_, values, count * sizeof(T));
    }
    ~BackendArray() {
        if (backend_) backend_->release(data_);
    }
    BackendArray(BackendArray&& o) noexcept
        : backend_(std::exchange(o.backend_, nullptr)),
          data_(std::exchange(o.data_, nullptr)),
          count_(std::exchange(o.count_, 0)) {}
    BackendArray& operator=(BackendArray&& o) noexcept {
        if (this != &o) {
            if (backend_) backend_->release(data_);
            backend_ = std::exchange(o.backend_, nullptr);
            data_ = std::exchange(o.data_, nullptr);
            count_ = std::exchange(o.count_, 0);
        }
        return *this;
    }
    BackendArray(const BackendArray&) = delete;
    BackendArray& operator=(const BackendArray&) = delete;

    T* data() const { return data_; }
    size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }

private:
    Backend* backend_ = nullptr;
    T* data_ = nullptr;
    size_t count_ = 0;
};

}  // namespace kvw
