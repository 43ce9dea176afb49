#include "core/io/huge_page_region.h"

#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

#include <sys/mman.h>
#include <unistd.h>

namespace kvw {

HugePageRegion::HugePageRegion(size_t bytes) : size_(bytes) {
    if (bytes == 0) return;
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    mapped_ = (bytes + page - 1) / page * page;
    // mmap aligns to a page only: reserve a huge page more and give back the unaligned head
    // and whatever lies past the mapped bytes.
    void* reserved = mmap(nullptr, mapped_ + kHugePageBytes, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED)
        throw std::system_error(errno, std::generic_category(),
                                "cannot allocate " + std::to_string(mapped_ >> 20) + " MiB");
    const uintptr_t start = reinterpret_cast<uintptr_t>(reserved);
    const uintptr_t aligned = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    if (aligned > start) munmap(reserved, aligned - start);
    const uintptr_t end = start + mapped_ + kHugePageBytes;
    if (end > aligned + mapped_)
        munmap(reinterpret_cast<void*>(aligned + mapped_), end - (aligned + mapped_));
    data_ = reinterpret_cast<uint8_t*>(aligned);
    madvise(data_, mapped_, MADV_HUGEPAGE);  // advice only: plain pages where refused
}

HugePageRegion::~HugePageRegion() {
    if (data_) munmap(data_, mapped_);
}

HugePageRegion::HugePageRegion(HugePageRegion&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)) {}

HugePageRegion& HugePageRegion::operator=(HugePageRegion&& other) noexcept {
    if (this != &other) {
        if (data_) munmap(data_, mapped_);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        mapped_ = std::exchange(other.mapped_, 0);
    }
    return *this;
}

}  // namespace kvw
