#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/names/enum_names.h"

namespace kvw {

// Where a layer's logical rows live physically (ARCHITECTURE §4, layouts), chosen per
// StateManager. All hold the same logical rows after the same edits, bit for bit (the ring
// until it first overwrites).
//  Contiguous:  rows in order inside one allocation; every edit moves the rows after it.
//  BatchSplice: edits are recorded and applied together, one pass of row movement per layer,
//               when the rows are next read as a block (in practice: once per tick).
//  Indirection: rows are written once, append-only; a per-layer index gives the logical order;
//               dead rows are compacted away when they are the majority or space runs out.
//  Ring:        a fixed window of `capacity` rows; appending to a full one drops its oldest
//               rows (after S pinned sinks) first (ARCHITECTURE §17; RingOptions).
enum class CacheLayout : uint8_t { Contiguous, BatchSplice, Indirection, Ring };

// Every layout, in the order lists and help texts name them.
inline constexpr EnumName<CacheLayout> kCacheLayoutNames[] = {
    {CacheLayout::Contiguous, "contiguous"},
    {CacheLayout::BatchSplice, "batch_splice"},
    {CacheLayout::Indirection, "indirection"},
    {CacheLayout::Ring, "ring"},
};

constexpr const char* cache_layout_name(CacheLayout layout) {
    return name_in(kCacheLayoutNames, layout);
}
constexpr std::optional<CacheLayout> parse_cache_layout(std::string_view name) {
    return value_in(kCacheLayoutNames, name);
}

}  // namespace kvw
