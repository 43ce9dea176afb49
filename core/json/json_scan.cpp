#include "core/json/json_scan.h"

#include <algorithm>

namespace kvw {
namespace {

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

JsonScan scan_json(std::string_view text, int depth_limit) {
    JsonScan scan;
    int depth = 0;  // never below 0: a stray closing bracket nests nothing
    bool in_string = false;
    std::optional<size_t> value_begin;  // set while a top-level value is being read
    bool in_first_array = false;        // inside values[0], which opened with '['
    bool element_expected = false;      // in that array, after its '[' or a ',' at its level

    const auto end_value = [&](size_t end) {
        scan.values.push_back({*value_begin, end});
        value_begin.reset();
        in_first_array = element_expected = false;
    };

    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') {
                ++i;  // the escaped byte, a quote perhaps, is part of the string
            } else if (c == '"') {
                in_string = false;
                if (depth == 0) end_value(i + 1);
            }
            continue;
        }
        if (is_json_space(c) && (!value_begin || depth > 0)) {
            continue;
        }
        if (!value_begin) {
            value_begin = i;
            in_first_array = scan.values.empty() && c == '[';
        }
        if (element_expected) {
            element_expected = false;
            if (c != ']') scan.array_elements.push_back(i);
        }

        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            ++depth;
            scan.max_depth = std::max(scan.max_depth, depth);
            if (depth > depth_limit && !scan.too_deep_at) scan.too_deep_at = i;
            element_expected = in_first_array && depth == 1;
        } else if (c == ']' || c == '}') {
            if (depth > 0) --depth;
            if (depth == 0) end_value(i + 1);
        } else if (c == ',' && depth == 1) {
            element_expected = in_first_array;
        } else if (depth == 0 && is_json_space(c)) {
            end_value(i);  // a scalar ends
        } else if (depth == 0 && c == ',') {
            if (*value_begin < i) end_value(i);  // a scalar ends
            value_begin = i;                     // and the comma is a value nlohmann will refuse
            end_value(i + 1);
        }
    }
    if (value_begin) end_value(text.size());
    return scan;
}

}  // namespace kvw
