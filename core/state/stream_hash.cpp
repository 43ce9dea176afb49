#include "core/state/stream_hash.h"

#include <bit>
#include <cstdio>
#include <cstring>

namespace kvw {

namespace {

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ull;

// XXH64 reads its input as little-endian words, as every machine this builds for stores them.
static_assert(std::endian::native == std::endian::little);

uint64_t read64(const unsigned char* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

uint32_t read32(const unsigned char* p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

uint64_t lane_round(uint64_t acc, uint64_t input) {
    return std::rotl(acc + input * kPrime2, 31) * kPrime1;
}

uint64_t merge(uint64_t acc, uint64_t lane) {
    return (acc ^ lane_round(0, lane)) * kPrime1 + kPrime4;
}

}  // namespace

void StreamHash::stripe(const unsigned char* p) {
    for (int i = 0; i < 4; ++i) lanes_[i] = lane_round(lanes_[i], read64(p + 8 * i));
}

void StreamHash::bytes(const void* data, size_t n) {
    if (n == 0) return;  // an empty vector's data() may be null, which memcpy must not see
    const auto* p = static_cast<const unsigned char*>(data);
    length_ += n;
    if (pending_size_ > 0) {
        const size_t take = n < 32 - pending_size_ ? n : 32 - pending_size_;
        std::memcpy(pending_ + pending_size_, p, take);
        pending_size_ += take;
        p += take;
        n -= take;
        if (pending_size_ < 32) return;
        stripe(pending_);
        pending_size_ = 0;
    }
    for (; n >= 32; p += 32, n -= 32) stripe(p);
    std::memcpy(pending_, p, n);
    pending_size_ = n;
}

uint64_t StreamHash::digest() const {
    uint64_t h;
    if (length_ >= 32) {
        h = std::rotl(lanes_[0], 1) + std::rotl(lanes_[1], 7) + std::rotl(lanes_[2], 12) +
            std::rotl(lanes_[3], 18);
        for (uint64_t lane : lanes_) h = merge(h, lane);
    } else {
        h = kPrime5;  // + the seed, 0
    }
    h += length_;
    const unsigned char* p = pending_;
    size_t n = pending_size_;
    for (; n >= 8; p += 8, n -= 8)
        h = std::rotl(h ^ lane_round(0, read64(p)), 27) * kPrime1 + kPrime4;
    if (n >= 4) {
        h = std::rotl(h ^ (uint64_t(read32(p)) * kPrime1), 23) * kPrime2 + kPrime3;
        p += 4;
        n -= 4;
    }
    for (; n > 0; ++p, --n) h = std::rotl(h ^ (uint64_t(*p) * kPrime5), 11) * kPrime1;
    h ^= h >> 33;
    h *= kPrime2;
    h ^= h >> 29;
    h *= kPrime3;
    h ^= h >> 32;
    return h;
}

std::string hash_hex(uint64_t hash) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

}  // namespace kvw
