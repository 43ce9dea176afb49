#include "core/cache/cache_capacity.h"

#include <fstream>
#include <string>

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

uint64_t default_cache_memory_budget() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024 / 2;
    return 0;
}

int checked_capacity(int64_t requested, int max_context, int n_layers, int kv_dim,
                     uint64_t memory_budget, const KvStorage& storage) {
    if (requested < 0) throw InvalidCapacity(CapacityFault::Negative, requested, 0);
    if (requested > max_context)
        throw InvalidCapacity(CapacityFault::BeyondContext, requested, max_context);
    const uint64_t row_bytes = cache_bytes(1, n_layers, kv_dim, storage);
    if (memory_budget > 0 && row_bytes > 0 && uint64_t(requested) > memory_budget / row_bytes)
        throw InvalidCapacity(CapacityFault::BeyondMemory, requested,
                              int64_t(memory_budget / row_bytes));
    return int(requested);
}

}  // namespace kvw
