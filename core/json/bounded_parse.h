#pragma once
#include <string_view>

#include <nlohmann/json.hpp>

namespace kvw {

// The deepest nesting of arrays and objects any JSON input may have. The deepest real input
// (a tokenizer.json normalizer Sequence inside a Sequence) nests about 6 levels; nlohmann's
// copies, dump() and comparisons, and our own walks, recurse once per level, so 100,000 levels
// overflow an 8 MiB stack while 128 cost a few kilobytes. See docs/ARCHITECTURE.md.
inline constexpr int kMaxJsonDepth = 128;

// Parses `text` as one JSON value after checking with scan_json() (one pass over the bytes, no
// recursion) that no array or object nests deeper than `max_depth`. Throws JsonError: TooDeep
// (offset of the bracket that goes too deep), Syntax (offset of the last byte read, nlohmann's
// explanation as detail), BadNumber (a number literal beyond a double, such as 1e999; the key path
// that holds it). Every JSON entry point of the core parses through here.
nlohmann::json parse_json_bounded(std::string_view text, int max_depth = kMaxJsonDepth);
// The same, keeping each object's keys in the order of the text (nlohmann::json sorts them):
// for values whose order is seen, such as a chat template's tojson of a tool schema.
nlohmann::ordered_json parse_ordered_json_bounded(std::string_view text,
                                                  int max_depth = kMaxJsonDepth);

}  // namespace kvw
