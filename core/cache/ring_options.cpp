#include "core/cache/ring_options.h"

namespace kvw {

void check_ring_options(const RingOptions& o, int capacity) {
    if (o.sinks < 0 || o.sinks >= capacity)
        throw RingError(RingField::Sinks, "sinks " + std::to_string(o.sinks) + " outside [0, " +
                                              std::to_string(capacity) +
                                              "): the ring needs at least one row after them");
    if (o.tokens_per_block < 1 || o.tokens_per_block > capacity - o.sinks)
        throw RingError(RingField::TokensPerBlock,
                        "tokens_per_frame " + std::to_string(o.tokens_per_block) + " outside [1, " +
                            std::to_string(capacity - o.sinks) +
                            "]: a frame is written beside the sinks in one update");
    if (o.mode != RingMode::Lut) return;
    const int ring = capacity - o.sinks;
    if (ring % o.tokens_per_block != 0)
        throw RingError(RingField::TokensPerBlock,
                        "lut: tokens_per_frame " + std::to_string(o.tokens_per_block) +
                            " does not divide the " + std::to_string(ring) +
                            " ring rows (size - sinks)");
    const size_t bytes = size_t(ring / o.tokens_per_block) * size_t(capacity) * sizeof(int32_t);
    if (bytes > kMaxLutBytes)
        throw RingError(RingField::TokensPerBlock,
                        "lut: " + std::to_string(ring / o.tokens_per_block) + " index tables of " +
                            std::to_string(capacity) + " rows take " + std::to_string(bytes >> 20) +
                            " MiB, over " + std::to_string(kMaxLutBytes >> 20) +
                            " MiB; use a larger tokens_per_frame or the pointer mode");
}

}  // namespace kvw
