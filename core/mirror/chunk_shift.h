#pragma once
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

}  // namespace kvw
