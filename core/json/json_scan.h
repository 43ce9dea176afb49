#pragma once
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace kvw {

// The bytes [begin, end) of one top-level JSON value.
struct JsonSpan {
    size_t begin = 0;
    size_t end = 0;
    bool operator==(const JsonSpan&) const = default;
};

// What one pass over the bytes of JSON text tells without parsing it: where each top-level
// value lies (a text may hold several, separated by whitespace, as NDJSON does), where the
// elements of the first value start when it is an array (an action list's array, whose faults
// are reported per element), and how deep arrays and objects nest.
struct JsonScan {
    std::vector<JsonSpan> values;
    std::vector<size_t> array_elements;  // offsets in the text; empty unless values[0] is an array
    int max_depth = 0;                   // 0: no array or object; [[]] is 2
    std::optional<size_t> too_deep_at;   // the first '[' or '{' nested deeper than the limit
};

// Scans `text` once, without recursion, so that input nested 100,000 deep costs no stack.
// Brackets inside strings do not nest and an escaped quote does not end a string. A value ends
// where its brackets balance, where a top-level string closes, or (a scalar) at whitespace or a
// comma. Malformed text still gets spans (a stray comma or closing bracket is a one-byte value;
// an unclosed value runs to the end): parsing a span with nlohmann then reports the precise
// syntax error. Element offsets are exact only for valid JSON.
JsonScan scan_json(std::string_view text, int depth_limit);

}  // namespace kvw
