#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace kvw {

// XXH64 (seed 0) of a byte stream fed in pieces of any size: the digest depends only on the
// bytes in order, not on how they were cut. The state hash (ARCHITECTURE §6) streams the ledger,
// the maps and every stored K/V byte through it after each command; XXH64 reads 32 bytes per
// round in four independent lanes, where the FNV-1a it replaced took one dependent multiply per
// byte (about 1 GB/s: at 22 layers x 100,000 rows that was most of a tick). A standard hash,
// so tests check it against an independent implementation (Python xxhash).
class StreamHash {
public:
    void bytes(const void* data, size_t n);
    // Inline while the value only fills the pending stripe: the state hash feeds a ledger record
    // as dozens of values of a few bytes each, 100,000 records a tick at the sizes the window
    // is built for, and a call per value was most of the hash's time.
    template <class T>
    void value(const T& v) {
        static_assert(sizeof v < 32);
        if (pending_size_ + sizeof v >= 32) return bytes(&v, sizeof v);
        std::memcpy(pending_ + pending_size_, &v, sizeof v);
        pending_size_ += sizeof v;
        length_ += sizeof v;
    }
    uint64_t digest() const;

private:
    void stripe(const unsigned char* p);  // one 32-byte round of the four lanes

    uint64_t lanes_[4] = {0x9E3779B185EBCA87ull + 0xC2B2AE3D27D4EB4Full, 0xC2B2AE3D27D4EB4Full, 0,
                          0 - 0x9E3779B185EBCA87ull};
    unsigned char pending_[32] = {};  // bytes not yet a whole stripe
    size_t pending_size_ = 0;
    uint64_t length_ = 0;
};

// A 64-bit hash as 16 lowercase hex digits, as traces, logs and messages write state hashes
// (JSON numbers are not safe beyond 2^53 for most readers).
std::string hash_hex(uint64_t hash);

}  // namespace kvw
