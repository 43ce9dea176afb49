#pragma once
// The commands that begin a sequence and step it (ARCHITECTURE §7 "Commands").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json/json_fields.h"

namespace kvw {

class Session;

namespace command {

// A new sequence: Session::start(text) (BOS added, tokenized) or Session::start_tokens(ids)
// (the ids as given, the teacher-forced evaluation's chunks).
struct Start {
    static constexpr std::string_view kEvent = "start";
    std::variant<std::string, std::vector<int32_t>> prompt;

    nlohmann::json to_json() const;
    static Start from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const Start&) const = default;
};

// One tick: sampled, or teacher-forced with the tokens of one decode block.
struct Tick {
    static constexpr std::string_view kEvent = "tick";
    // Empty: Step 1 samples. Else the block's tokens, taken instead of sampling
    // (Session::step_forced).
    std::vector<int32_t> forced;
    // A sampled tick of exactly one token whatever the ring's decode block
    // (Session::step_one_token): what a sampled tick event without "tokens" was, recorded before
    // block decoding or with blocks of one token (ARCHITECTURE §17). A sampled block's mark in
    // its event is the outcome "tokens", so to_json() alone reads back as one token.
    bool one_token = false;

    nlohmann::json to_json() const;
    static Tick from_json(const JsonFields& event, size_t line, const std::string& file);
    void apply(Session& session) const;
    bool operator==(const Tick&) const = default;
};

}  // namespace command
}  // namespace kvw
