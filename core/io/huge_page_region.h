#pragma once
// Anonymous memory for data that is streamed at length every token (model weights, K/V rows):
// 2 MiB aligned and advised for transparent huge pages. On these VMs a 4 KiB page missing from
// the TLB costs a nested page walk, so streams from 4 KiB pages read well under the memory's
// rate (docs/ARCHITECTURE.md §5.1, §5.4).
#include <cstddef>
#include <cstdint>

namespace kvw {

// Bytes that a huge page holds; a region smaller than this holds none.
constexpr size_t kHugePageBytes = size_t(2) << 20;

class HugePageRegion {
public:
    HugePageRegion() = default;
    // `bytes` of zeroed memory starting at a huge-page boundary, mapped to the next 4 KiB (so
    // whole 2 MiB parts are huge pages where the system gives them, the tail plain pages).
    // Throws std::system_error, its message naming the size, when the system refuses.
    explicit HugePageRegion(size_t bytes);
    ~HugePageRegion();
    HugePageRegion(HugePageRegion&& other) noexcept;
    HugePageRegion& operator=(HugePageRegion&& other) noexcept;
    HugePageRegion(const HugePageRegion&) = delete;
    HugePageRegion& operator=(const HugePageRegion&) = delete;

    uint8_t* data() const { return data_; }
    size_t size() const { return size_; }

private:
    uint8_t* data_ = nullptr;
    size_t size_ = 0;
    size_t mapped_ = 0;
};

}  // namespace kvw
