#pragma once
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace kvw {

// log2 of a chunk size, which must be a power of two so that the chunked containers Frames
// share (ChunkedColumn, ChunkedRecords) index by a shift and a mask; std::invalid_argument
// naming `container` otherwise.
inline unsigned chunk_shift(size_t chunk_size, const char* container) {
    if (chunk_size == 0 || (chunk_size & (chunk_size - 1)) != 0)
        throw std::invalid_argument(std::string(container) + ": chunk size " +
                                    std::to_string(chunk_size) + " is not a power of two");
    unsigned shift = 0;
    while ((size_t(1) << shift) < chunk_size) ++shift;
    return shift;
}

// How many of `size` values, cut into chunks of chunk_size, chunk c holds: chunk_size for every
// chunk but the last, the rest for the last, 0 past it.
inline size_t values_in_chunk(size_t size, size_t chunk_size, size_t c) {
    return std::min(chunk_size, size - std::min(size, c * chunk_size));
}

}  // namespace kvw
