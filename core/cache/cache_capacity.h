#pragma once
#include <cstdint>
#include <stdexcept>

#include "core/cache/cache_layout.h"
#include "core/cache/kv_storage.h"
#include "core/cache/ring_options.h"

namespace kvw {

// Why a cache capacity (rows per layer) was refused.
enum class CapacityFault {
    Negative,       // below zero
    BeyondContext,  // more rows than the model's trained context
    BeyondMemory,   // the K and V rows of every layer would not fit the memory budget
};

const char* capacity_fault_name(CapacityFault fault);

// A capacity no cache may be given. what() names the value and the limit it broke; nothing
// has been allocated when it is thrown.
class InvalidCapacity : public std::invalid_argument {
public:
    InvalidCapacity(CapacityFault fault, int64_t requested, int64_t limit);

    CapacityFault fault() const { return fault_; }
    int64_t requested() const { return requested_; }
    int64_t limit() const { return limit_; }  // rows

private:
    CapacityFault fault_;
    int64_t requested_;
    int64_t limit_;
};

// Bytes a cache of `capacity` rows per layer takes: K and V of every layer in their storage
// types, scales included.
uint64_t cache_bytes(int64_t capacity, int n_layers, int kv_dim, const KvStorage& storage = {});

// What a layout allocates for a capacity of T rows per layer, beside nothing else: `slabs`
// buffers of T rows of every layer (the rows, plus a ring's scratch for pointer / lut and its
// checksum shadow; each row with its K/V, scales and saturation counter), and `fixed_bytes`
// (lut's index tables). docs/ARCHITECTURE.md §17.
struct LayoutMemory {
    int slabs = 1;
    uint64_t fixed_bytes = 0;
};
LayoutMemory layout_memory(CacheLayout layout, const RingOptions& ring, int64_t capacity);

// Every byte a cache of `capacity` rows per layer in `layout` allocates (LayoutMemory).
uint64_t layout_bytes(int64_t capacity, int n_layers, int kv_dim, const KvStorage& storage,
                      CacheLayout layout, const RingOptions& ring);

// What a new cache may take: half of the memory the system reports available now
// (MemAvailable), leaving the rest to the forward pass, the Frames and everything else;
// 0 where the system does not say.
uint64_t default_cache_memory_budget();

// `requested` checked against the model's context and `memory_budget` bytes (0: no budget
// known) for everything `layout` allocates (layout_bytes); throws InvalidCapacity, whose limit
// is the largest capacity that fits. Checking before allocating turns a typo such as
// --capacity 2000000000 into an error that names it, not a bare std::bad_alloc.
int checked_capacity(int64_t requested, int max_context, int n_layers, int kv_dim,
                     uint64_t memory_budget, const KvStorage& storage = {},
                     CacheLayout layout = CacheLayout::Contiguous, const RingOptions& ring = {});

}  // namespace kvw
