#pragma once
// The commands that change how the cache stores its rows: RoPE phases, layout, K/V types and
// the guard that checks every primitive (ARCHITECTURE §7 "Commands").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/cache/cache_layout.h"
#include "core/cache/ring_options.h"
#include "core/json/json_fields.h"
#include "core/math/kv_quant.h"
#include "core/state/rope_policy.h"

namespace kvw {

class Session;

namespace command {

// Session::set_rope_policy: every row's phase re-derived, the cache rebuilt.
struct SetRopePolicy {
    static constexpr std::string_view kEvent = "set_rope_policy";
    RopePolicy policy = RopePolicy::FinalIndex;

    nlohmann::json to_json() const;
    static SetRopePolicy from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const SetRopePolicy&) const = default;
};

// Session::set_layout: the cache moved to another layout (the state hash stays).
struct SetLayout {
    static constexpr std::string_view kEvent = "set_layout";
    CacheLayout layout = CacheLayout::Contiguous;
    // The ring's options; nullopt keeps the session's (a layout other than the ring records
    // none).
    std::optional<RingOptions> ring;
    // Rows per layer; 0 keeps them (traces from before "capacity" was recorded).
    int64_t capacity = 0;

    nlohmann::json to_json() const;
    static SetLayout from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const SetLayout&) const = default;
};

// Session::set_kv_types: the storage types of the cached K and V rows.
struct SetKvTypes {
    static constexpr std::string_view kEvent = "set_kv_types";
    KvType k = KvType::F32;
    KvType v = KvType::F32;

    nlohmann::json to_json() const;
    static SetKvTypes from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const SetKvTypes&) const = default;
};

// Session::set_guard: the invariants re-checked after every primitive, or not.
struct SetGuard {
    static constexpr std::string_view kEvent = "set_guard";
    bool on = true;

    nlohmann::json to_json() const;
    static SetGuard from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const SetGuard&) const = default;
};

}  // namespace command
}  // namespace kvw
