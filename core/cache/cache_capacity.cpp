#include "core/cache/cache_capacity.h"

#include <algorithm>
#include <string>

#include "core/cache/row_buffer.h"
#include "core/model/available_memory.h"

namespace kvw {

namespace {

std::string describe(CapacityFault fault, int64_t requested, int64_t limit) {
    const std::string value = "capacity " + std::to_string(requested) + " rows per layer";
    switch (fault) {
        case CapacityFault::Negative: return value + ": must not be negative";
        case CapacityFault::BeyondContext:
            return value + ": beyond the model's context of " + std::to_string(limit) + " rows";
        case CapacityFault::BeyondMemory:
            return value + ": the cache would not fit the memory budget (at most " +
                   std::to_string(limit) + " rows)";
    }
    return value;
}

}  // namespace

const char* capacity_fault_name(CapacityFault fault) {
    switch (fault) {
        case CapacityFault::Negative: return "Negative";
        case CapacityFault::BeyondContext: return "BeyondContext";
        case CapacityFault::BeyondMemory: return "BeyondMemory";
    }
    return "?";
}

InvalidCapacity::InvalidCapacity(CapacityFault fault, int64_t requested, int64_t limit)
    : std::invalid_argument(describe(fault, requested, limit)),
      fault_(fault),
      requested_(requested),
      limit_(limit) {}

uint64_t cache_bytes(int64_t capacity, int n_layers, int kv_dim, const KvStorage& storage) {
    return uint64_t(capacity) * uint64_t(n_layers) * storage.row_bytes(kv_dim);
}

LayoutMemory layout_memory(CacheLayout layout, const RingOptions& ring, int64_t capacity) {
    LayoutMemory m;
    if (layout != CacheLayout::Ring) return m;
    if (ring.mode != RingMode::Roll) ++m.slabs;  // the scratch (RingLayout)
    if (ring.checksum) ++m.slabs;                // the shadow roll copy
    const int64_t slots = std::max<int64_t>(capacity - ring.sinks, 0);
    if (ring.mode == RingMode::Lut && ring.tokens_per_block > 0)
        m.fixed_bytes =
            uint64_t(slots / ring.tokens_per_block) * uint64_t(capacity) * sizeof(int32_t);
    return m;
}

namespace {

// One row of every layer in one slab: K, V, scales and the per-row saturation counters.
uint64_t slab_row_bytes(int n_layers, int kv_dim, const KvStorage& storage) {
    return cache_bytes(1, n_layers, kv_dim, storage) +
           uint64_t(n_layers) * RowBuffer::counter_bytes(storage);
}

}  // namespace

uint64_t layout_bytes(int64_t capacity, int n_layers, int kv_dim, const KvStorage& storage,
                      CacheLayout layout, const RingOptions& ring) {
    const LayoutMemory m = layout_memory(layout, ring, capacity);
    return uint64_t(m.slabs) * uint64_t(capacity) * slab_row_bytes(n_layers, kv_dim, storage) +
           m.fixed_bytes;
}

uint64_t default_cache_memory_budget() { return available_memory_bytes() / 2; }

int checked_capacity(int64_t requested, int max_context, int n_layers, int kv_dim,
                     uint64_t memory_budget, const KvStorage& storage, CacheLayout layout,
                     const RingOptions& ring) {
    if (requested < 0) throw InvalidCapacity(CapacityFault::Negative, requested, 0);
    if (requested > max_context)
        throw InvalidCapacity(CapacityFault::BeyondContext, requested, max_context);
    if (memory_budget == 0) return int(requested);
    // Within the context the product fits 64 bits; lut's tables grow with the capacity too,
    // so the limit is the largest capacity whose every byte fits, found by halving.
    const auto fits = [&](int64_t rows) {
        return layout_bytes(rows, n_layers, kv_dim, storage, layout, ring) <= memory_budget;
    };
    if (fits(requested)) return int(requested);
    int64_t lo = 0, hi = requested;  // fits(lo) (an empty cache allocates nothing), !fits(hi)
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    throw InvalidCapacity(CapacityFault::BeyondMemory, requested, lo);
}

}  // namespace kvw
