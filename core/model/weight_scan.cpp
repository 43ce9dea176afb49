#include "core/model/weight_scan.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "core/model/parallel_ranges.h"

namespace kvw {
namespace {

// A value is NaN or Inf exactly when its exponent bits are all ones, in all three formats.
template <typename Bits, Bits kExponent>
int64_t first_in_range(const uint8_t* data, size_t begin, size_t end) {
    constexpr size_t kChunk = 4096;  // branch-free (vectorisable) test per chunk, then locate
    for (size_t c = begin; c < end; c += kChunk) {
        const size_t stop = std::min(end, c + kChunk);
        bool any = false;
        for (size_t i = c; i < stop; ++i) {
            Bits b;
            std::memcpy(&b, data + i * sizeof(Bits), sizeof b);
            any |= (b & kExponent) == kExponent;
        }
        if (!any) continue;
        for (size_t i = c; i < stop; ++i) {
            Bits b;
            std::memcpy(&b, data + i * sizeof(Bits), sizeof b);
            if ((b & kExponent) == kExponent) return int64_t(i);
        }
    }
    return -1;
}

// A quantised block's values are its integer quants times its f16 scales (and minus its f16
// min scale for Q4_K), all far below float32's range: they are finite exactly when the f16
// fields are. Returns the first element of the first block with a NaN or Inf field.
int64_t first_in_blocks(DType dtype, const uint8_t* data, size_t begin, size_t end) {
    const DTypeBlock block = dtype_block(dtype);
    const int offsets[2] = {dtype == DType::Q6_K ? 208 : 0, dtype == DType::Q4_K ? 2 : -1};
    for (size_t b = begin; b < end; ++b) {
        for (const int at : offsets) {
            if (at < 0) continue;
            const uint8_t* p = data + b * block.bytes + at;
            if ((uint16_t(p[0] | (p[1] << 8)) & 0x7c00u) == 0x7c00u)
                return int64_t(b * block.elems);
        }
    }
    return -1;
}

int64_t first_in_range(DType dtype, const uint8_t* data, size_t begin, size_t end) {
    switch (dtype) {
        case DType::F32: return first_in_range<uint32_t, 0x7f800000u>(data, begin, end);
        case DType::F16: return first_in_range<uint16_t, 0x7c00u>(data, begin, end);
        case DType::BF16: return first_in_range<uint16_t, 0x7f80u>(data, begin, end);
        case DType::Q8_0:
        case DType::Q4_0:
        case DType::Q4_K:
        case DType::Q6_K: return first_in_blocks(dtype, data, begin, end);
    }
    return -1;
}

}  // namespace

int64_t find_non_finite(DType dtype, const void* data, size_t count) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    std::atomic<int64_t> first{-1};
    // Ranges are of elements for the plain types and of blocks for the quantised ones.
    const size_t units = count / dtype_block(dtype).elems;
    for_each_range(units, size_t(1) << 20, [&](size_t begin, size_t end) {
        const int64_t found = first_in_range(dtype, bytes, begin, end);
        if (found < 0) return;
        int64_t seen = first.load();  // keep the smallest index any range found
        while ((seen < 0 || found < seen) && !first.compare_exchange_weak(seen, found)) {
        }
    });
    return first.load();
}

}  // namespace kvw
