#pragma once
#include <cstddef>

namespace kvw {

// Read bandwidth in GB/s (1e9 bytes per second): `threads` threads (0: every core) each stream
// their share of a `bytes` buffer as 1, 2, 4 or 8 parallel streams; the best pass of all. Pass a
// buffer well beyond the last-level cache (e.g. 1 GiB) to measure memory; this is the ceiling
// decode throughput is compared to.
double measure_read_bandwidth_gbs(size_t bytes, int threads = 0);

}  // namespace kvw
