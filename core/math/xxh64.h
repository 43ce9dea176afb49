#pragma once
// XXH64 with seed 0 (the public xxHash specification: four lanes of 64-bit multiply-rotate rounds
// over 32-byte stripes, a merge of the lanes, the tail in 8-, 4- and 1-byte steps, an avalanche),
// usable on host and device. Xxh64State hashes a byte stream fed in pieces of any size: the
// digest depends only on the bytes in order, so the host's state hash (StreamHash) and the
// device's per-block digests (kernels/bodies/cache_digest.h) give the same number for the same
// bytes, and a state started on the host can be finished on the device.
#include <stdint.h>
#include <string.h>

#include <bit>
#include <cstddef>

#include "core/math/hd.h"

namespace kvw {

inline constexpr uint64_t kXxhPrime1 = 0x9E3779B185EBCA87ull;
inline constexpr uint64_t kXxhPrime2 = 0xC2B2AE3D27D4EB4Full;
inline constexpr uint64_t kXxhPrime3 = 0x165667B19E3779F9ull;
inline constexpr uint64_t kXxhPrime4 = 0x85EBCA77C2B2AE63ull;
inline constexpr uint64_t kXxhPrime5 = 0x27D4EB2F165667C5ull;

KVW_HD uint64_t xxh_rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// XXH64 reads its input as little-endian words, as every machine this builds for (x86-64 and
// the CUDA devices) stores them; memcpy because the bytes need not be aligned.
static_assert(std::endian::native == std::endian::little);

KVW_HD uint64_t xxh_read64(const unsigned char* p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

KVW_HD uint32_t xxh_read32(const unsigned char* p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

KVW_HD uint64_t xxh_round(uint64_t acc, uint64_t input) {
    return xxh_rotl(acc + input * kXxhPrime2, 31) * kXxhPrime1;
}

KVW_HD uint64_t xxh_merge(uint64_t acc, uint64_t lane) {
    return (acc ^ xxh_round(0, lane)) * kXxhPrime1 + kXxhPrime4;
}

// A plain struct (no constructor work, trivially copyable), so a state can be copied to the
// device and go on there.
struct Xxh64State {
    uint64_t lanes[4] = {kXxhPrime1 + kXxhPrime2, kXxhPrime2, 0, 0 - kXxhPrime1};
    unsigned char pending[32] = {};  // bytes not yet a whole stripe
    uint64_t pending_size = 0;
    uint64_t length = 0;

    // One 32-byte round of the four lanes.
    KVW_HD void stripe(const unsigned char* p) {
        for (int i = 0; i < 4; ++i) lanes[i] = xxh_round(lanes[i], xxh_read64(p + 8 * i));
    }

    KVW_HD void update(const void* data, size_t n) {
        if (n == 0) return;  // an empty vector's data() may be null, which memcpy must not see
        const auto* p = static_cast<const unsigned char*>(data);
        length += n;
        if (pending_size > 0) {
            const size_t take = n < 32 - pending_size ? n : size_t(32 - pending_size);
            memcpy(pending + pending_size, p, take);
            pending_size += take;
            p += take;
            n -= take;
            if (pending_size < 32) return;
            stripe(pending);
            pending_size = 0;
        }
        for (; n >= 32; p += 32, n -= 32) stripe(p);
        memcpy(pending, p, n);
        pending_size = n;
    }

    KVW_HD uint64_t digest() const {
        uint64_t h;
        if (length >= 32) {
            h = xxh_rotl(lanes[0], 1) + xxh_rotl(lanes[1], 7) + xxh_rotl(lanes[2], 12) +
                xxh_rotl(lanes[3], 18);
            for (int i = 0; i < 4; ++i) h = xxh_merge(h, lanes[i]);
        } else {
            h = kXxhPrime5;  // + the seed, 0
        }
        h += length;
        const unsigned char* p = pending;
        size_t n = size_t(pending_size);
        for (; n >= 8; p += 8, n -= 8)
            h = xxh_rotl(h ^ xxh_round(0, xxh_read64(p)), 27) * kXxhPrime1 + kXxhPrime4;
        if (n >= 4) {
            h = xxh_rotl(h ^ (uint64_t(xxh_read32(p)) * kXxhPrime1), 23) * kXxhPrime2 + kXxhPrime3;
            p += 4;
            n -= 4;
        }
        for (; n > 0; ++p, --n) h = xxh_rotl(h ^ (uint64_t(*p) * kXxhPrime5), 11) * kXxhPrime1;
        h ^= h >> 33;
        h *= kXxhPrime2;
        h ^= h >> 29;
        h *= kXxhPrime3;
        h ^= h >> 32;
        return h;
    }
};

// The digest of n bytes in one piece.
KVW_HD uint64_t xxh64(const void* data, size_t n) {
    Xxh64State s;
    s.update(data, n);
    return s.digest();
}

}  // namespace kvw
