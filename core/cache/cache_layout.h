#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace kvw {

// Where a layer's logical rows live physically (ARCHITECTURE §4, layouts), chosen per
// StateManager. All three hold the same logical rows after the same edits, bit for bit.
//  Contiguous:  rows in order inside one allocation; every edit moves the rows after it.
//  BatchSplice: edits are recorded and applied together, one pass of row movement per layer,
//               when the rows are next read as a block (in practice: once per tick).
//  Indirection: rows are written once, append-only; a per-layer index gives the logical order;
//               dead rows are compacted away when they are the majority or space runs out.
enum class CacheLayout : uint8_t { Contiguous, BatchSplice, Indirection };

const char* cache_layout_name(CacheLayout layout);  // "contiguous", "batch_splice", "indirection"
std::optional<CacheLayout> parse_cache_layout(std::string_view name);

}  // namespace kvw
