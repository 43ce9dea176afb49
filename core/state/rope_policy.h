#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/names/enum_names.h"

namespace kvw {

// Which RoPE phase a cache row's K carries (ARCHITECTURE §4), chosen per session.
//  FinalIndex: new rows get their final row index; old rows keep their phase when rows move.
//  Reindex:    every row's phase equals its row index; rows that move are re-rotated by the
//              delta (what a K-shift does).
//  Original:   the phase is the row's ledger id, i.e. positions follow ledger chronology.
enum class RopePolicy : uint8_t { FinalIndex, Reindex, Original };

inline constexpr EnumName<RopePolicy> kRopePolicyNames[] = {
    {RopePolicy::FinalIndex, "final_index"},
    {RopePolicy::Reindex, "reindex"},
    {RopePolicy::Original, "original"},
};

constexpr const char* rope_policy_name(RopePolicy policy) {
    return name_in(kRopePolicyNames, policy);
}
constexpr std::optional<RopePolicy> parse_rope_policy(std::string_view name) {
    return value_in(kRopePolicyNames, name);
}

}  // namespace kvw
