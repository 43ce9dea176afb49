#pragma once
// How a file of model weights reaches memory: read into huge pages or memory-mapped.
#include <cstdint>
#include <memory>
#include <string>

#include "core/model/mapped_file.h"

namespace kvw {

// The file read into anonymous memory, 2 MiB aligned and advised for transparent huge pages
// (plain pages where the system has none). Throws ModelError(CannotOpen) when the file cannot
// be opened, read, or the memory allocated.
std::shared_ptr<const ByteSource> read_into_huge_pages(const std::string& path);

// Whether a weight file of `file_bytes` is read into memory rather than mapped, given the
// memory the system has available (MemAvailable; 0 when unknown): when it takes at most half.
bool read_weights_into_memory(uint64_t file_bytes, uint64_t available_bytes);

// A file of model weights (GGUF, a safetensors shard), where the matmul kernels read it
// fastest: read_into_huge_pages when read_weights_into_memory says so, else map_file (a file
// larger than memory still loads, paged by the kernel). Weights are kept in the file's types
// either way. Decode reads every weight once per token, and on these machines a page-cache
// mapping streamed at about 70 % of the memory read ceiling where huge pages reach it
// (docs/ARCHITECTURE.md §5.1). Logs which it chose.
std::shared_ptr<const ByteSource> open_weight_file(const std::string& path);

}  // namespace kvw
