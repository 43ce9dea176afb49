#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/names/enum_names.h"

namespace kvw {

// How the ring layout (docs/ARCHITECTURE.md §17) keeps its window of T = capacity rows:
//  Roll:    physical order == logical order; dropping the oldest rows shifts the window (one
//           memmove of the rows kept), new rows are written at the tail.
//  Pointer: rows stay where they were written; a write pointer goes round the T - S ring slots
//           and a read assembles the window oldest -> newest into a scratch with always two
//           copies (the tail part from the oldest slot to the slab end, then the head part).
//  Lut:     as Pointer, but the oldest slot sits on a block of tokens_per_block rows, so a read
//           is one of (T - S) / tokens_per_block precomputed index tables: no copy.
enum class RingMode : uint8_t { Roll, Pointer, Lut };

// Every mode, in the order lists and help texts name them.
inline constexpr EnumName<RingMode> kRingModeNames[] = {
    {RingMode::Roll, "roll"},
    {RingMode::Pointer, "pointer"},
    {RingMode::Lut, "lut"},
};

constexpr const char* ring_mode_name(RingMode mode) { return name_in(kRingModeNames, mode); }
constexpr std::optional<RingMode> parse_ring_mode(std::string_view name) {
    return value_in(kRingModeNames, name);
}

struct RingOptions {
    RingMode mode = RingMode::Roll;
    int sinks = 0;  // S: the first S logical rows are never overwritten (StreamingLLM)
    // Rows a decode block writes (a Session tick decodes this many tokens); Lut's block size.
    // Traces, the command line and scripts call it by its historic name, tokens per frame
    // (the "tokens_per_frame" key, --tokens-per-frame): not the UI's Frame.
    int tokens_per_block = 1;
    bool checksum = false;  // keep a shadow roll copy and compare every assembled window
    bool operator==(const RingOptions&) const = default;
};

// Which ring option a RingError is about.
enum class RingField : uint8_t { Sinks, TokensPerBlock };

// Ring options that do not fit a ring of `capacity` rows. what() names the option and why;
// field() says which one, for a form that shows the error beside it.
class RingError : public std::invalid_argument {
public:
    RingError(RingField field, const std::string& what)
        : std::invalid_argument("ring: " + what), field_(field) {}
    RingField field() const { return field_; }

private:
    RingField field_;
};

// Throws RingError unless 0 <= sinks < capacity, 1 <= tokens_per_block <= capacity - sinks, and
// for Lut tokens_per_block divides capacity - sinks and the index tables fit kMaxLutBytes.
// The messages name the block size as users see it, tokens_per_frame (the trace key).
void check_ring_options(const RingOptions& options, int capacity);

// Lut keeps (T - S) / tokens_per_block tables of T int32 entries; beyond this it is refused.
inline constexpr size_t kMaxLutBytes = size_t(64) << 20;

}  // namespace kvw
