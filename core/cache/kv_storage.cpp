#include "core/cache/kv_storage.h"

#include <string>

namespace kvw {

namespace {

uint64_t stored_bytes(KvType t, int kv_dim, int groups) {
    return uint64_t(kv_dim) * uint64_t(kv_type_bytes(t)) +
           (kv_type_scaled(t) ? uint64_t(groups) * sizeof(float) : 0);
}

}  // namespace

uint64_t KvStorage::row_bytes(int kv_dim) const {
    return stored_bytes(k, kv_dim, groups) + stored_bytes(v, kv_dim, groups);
}

// One step of each format relative to the row's norm: f16 and bf16 steps are 2^-10 and 2^-7 of
// the value; int8's is the group's amax / 127; FP8 E4M3's is 2^-3 of the value (3 mantissa
// bits). A step, not half of one, because the reference pass may differ from the cached row in
// the last float32 bits and so round the other way.
float kv_type_drift_tolerance(KvType t) {
    constexpr float kF32 = 1e-5f;
    switch (t) {
        case KvType::F32: return kF32;
        case KvType::F16: return kF32 + 1.0f / 1024.0f;
        case KvType::BF16: return kF32 + 1.0f / 128.0f;
        case KvType::Int8: return kF32 + 1.0f / 127.0f;
        case KvType::Fp8E4M3: return kF32 + 1.0f / 8.0f;
    }
    return kF32;
}

}  // namespace kvw
