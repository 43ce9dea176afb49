#include "core/cache/ring_options.h"

namespace kvw {

const char* ring_mode_name(RingMode mode) {
    switch (mode) {
        case RingMode::Roll: return "roll";
        case RingMode::Pointer: return "pointer";
        case RingMode::Lut: return "lut";
    }
    return "?";
}

std::optional<RingMode> parse_ring_mode(std::string_view name) {
    for (RingMode m : kRingModes)
        if (name == ring_mode_name(m)) return m;
    return std::nullopt;
}

const char* ring_mode_choices() {
    static const std::string choices = [] {
        std::string text;
        for (RingMode m : kRingModes)
            text += (text.empty() ? "" : "|") + std::string(ring_mode_name(m));
        return text;
    }();
    return choices.c_str();
}

void check_ring_options(const RingOptions& o, int capacity) {
    if (o.sinks < 0 || o.sinks >= capacity)
        throw RingError(RingField::Sinks, "sinks " + std::to_string(o.sinks) + " outside [0, " +
                                              std::to_string(capacity) +
                                              "): the ring needs at least one row after them");
    if (o.tokens_per_frame < 1 || o.tokens_per_frame > capacity - o.sinks)
        throw RingError(RingField::TokensPerFrame,
                        "tokens_per_frame " + std::to_string(o.tokens_per_frame) + " outside [1, " +
                            std::to_string(capacity - o.sinks) +
                            "]: a frame is written beside the sinks in one update");
    if (o.mode != RingMode::Lut) return;
    const int ring = capacity - o.sinks;
    if (ring % o.tokens_per_frame != 0)
        throw RingError(RingField::TokensPerFrame,
                        "lut: tokens_per_frame " + std::to_string(o.tokens_per_frame) +
                            " does not divide the " + std::to_string(ring) +
                            " ring rows (size - sinks)");
    const size_t bytes = size_t(ring / o.tokens_per_frame) * size_t(capacity) * sizeof(int32_t);
    if (bytes > kMaxLutBytes)
        throw RingError(RingField::TokensPerFrame,
                        "lut: " + std::to_string(ring / o.tokens_per_frame) + " index tables of " +
                            std::to_string(capacity) + " rows take " + std::to_string(bytes >> 20) +
                            " MiB, over " + std::to_string(kMaxLutBytes >> 20) +
                            " MiB; use a larger tokens_per_frame or the pointer mode");
}

}  // namespace kvw
