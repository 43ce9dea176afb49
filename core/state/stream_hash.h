#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/math/xxh64.h"

namespace kvw {

// XXH64 (seed 0, core/math/xxh64.h) of a byte stream fed in pieces of any size: the digest depends
// only on the bytes in order, not on how they were cut. The state hash (ARCHITECTURE §6) streams
// the ledger, the maps and every stored K/V byte through it after each command; XXH64 reads 32
// bytes per round in four independent lanes, where the FNV-1a it replaced took one dependent
// multiply per byte (about 1 GB/s: at 22 layers x 100,000 rows that was most of a tick). A standard
// hash, so tests check it against an independent implementation (Python xxhash).
class StreamHash {
public:
    void bytes(const void* data, size_t n) { state_.update(data, n); }
    // Inline while the value only fills the pending stripe: the state hash feeds a ledger record
    // as dozens of values of a few bytes each, 100,000 records a tick at the sizes the window
    // is built for, and a call per value was most of the hash's time.
    template <class T>
    void value(const T& v) {
        static_assert(sizeof v < 32);
        if (state_.pending_size + sizeof v >= 32) return bytes(&v, sizeof v);
        std::memcpy(state_.pending + state_.pending_size, &v, sizeof v);
        state_.pending_size += sizeof v;
        state_.length += sizeof v;
    }
    uint64_t digest() const { return state_.digest(); }
    // The bytes so far as XXH64's state: a row block's digest is begun here with what the host
    // keeps (the block's maps) and finished on the device over its stored rows
    // (kernels/bodies/cache_digest.h).
    const Xxh64State& state() const { return state_; }
    Xxh64State& state() { return state_; }

private:
    Xxh64State state_;  // core/math/xxh64.h, shared with the device
};

// A 64-bit hash as 16 lowercase hex digits, as traces, logs and messages write state hashes
// (JSON numbers are not safe beyond 2^53 for most readers).
std::string hash_hex(uint64_t hash);

}  // namespace kvw
