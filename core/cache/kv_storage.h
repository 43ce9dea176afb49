#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/math/kv_quant.h"
#include "core/names/enum_names.h"

namespace kvw {

// How a cache stores its rows (docs/ARCHITECTURE.md §13): K and V each in their own type,
// chosen independently; int8 and FP8 rows carry one scale per KV head (`groups`).
struct KvStorage {
    KvType k = KvType::F32;
    KvType v = KvType::F32;
    int groups = 1;  // scales per row: the model's KV heads

    // Bytes one row of K and V takes, scales included.
    uint64_t row_bytes(int kv_dim) const;
};

// Every storage type, in the order menus and help texts list them.
inline constexpr EnumName<KvType> kKvTypeNames[] = {
    {KvType::F32, "f32"},   {KvType::F16, "f16"},     {KvType::BF16, "bf16"},
    {KvType::Int8, "int8"}, {KvType::Fp8E4M3, "fp8"},
};

constexpr const char* kv_type_name(KvType t) { return name_in(kKvTypeNames, t); }
constexpr std::optional<KvType> parse_kv_type(std::string_view name) {
    return value_in(kKvTypeNames, name);
}

// The largest relative row error (max |cached - reference| / ||reference row||) storing a row
// in `t` may add: one step of the format (docs/ARCHITECTURE.md §13), plus the float32 slack.
float kv_type_drift_tolerance(KvType t);

}  // namespace kvw
