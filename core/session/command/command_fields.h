#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json/json_fields.h"
#include "core/state/action.h"

namespace kvw {

// Readers of the values session commands keep in their trace events, shared by the commands'
// from_json(). Faults of the JSON kind (absent, wrong type, a name no value has) are JsonErrors
// naming the key, which decode_command() turns into the TraceError naming the line.

// The action list under "actions"; TraceError naming the line and the key when it does not read.
ActionList actions_field(const JsonFields& event, size_t line, const std::string& file);

// An array of token ids ("prompt_ids", "tokens"); each element is read as an int32.
std::vector<int32_t> tokens_field(const JsonFields& event, std::string_view key);

// The string under `key` as the value `parse` knows it by; JsonError(WrongType) naming the key
// and `what` ("a RoPE policy") when no value has that name.
template <typename Value>
Value named_field(const JsonFields& event, std::string_view key,
                  std::optional<Value> (*parse)(std::string_view), std::string_view what) {
    const std::string name = event.get<std::string>(key);
    if (const std::optional<Value> value = parse(name)) return *value;
    throw JsonError(JsonFaultKind::WrongType, event.path_of(key),
                    "is \"" + name + "\", expected " + std::string(what));
}

}  // namespace kvw
