#pragma once
// How much memory the system says a new allocation can take now.
#include <cstdint>

namespace kvw {

// MemAvailable of /proc/meminfo in bytes; 0 where the system does not say. The loaders (a weight
// file read or mapped, core/model/weight_file.h) and the cache budget
// (core/cache/cache_capacity.h) each take their share of it.
uint64_t available_memory_bytes();

}  // namespace kvw
