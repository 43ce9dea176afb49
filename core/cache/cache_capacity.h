#pragma once
#include <cstdint>
#include <stdexcept>

#include "core/cache/kv_storage.h"

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

// What a new cache may take: half of the memory the system reports available now
// (MemAvailable), leaving the rest to the forward pass, the frames and everything else;
// 0 where the system does not say.
uint64_t default_cache_memory_budget();

// `requested` checked against the model's context and `memory_budget` bytes (0: no budget
// known); throws InvalidCapacity. Checking before allocating turns a typo such as
// --capacity 2000000000 into an error that names it, not a bare std::bad_alloc.
int checked_capacity(int64_t requested, int max_context, int n_layers, int kv_dim,
                     uint64_t memory_budget, const KvStorage& storage = {});

}  // namespace kvw
