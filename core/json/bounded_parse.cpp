#include "core/json/bounded_parse.h"

#include <cstdint>
#include <string>

#include "core/json/json_error.h"

namespace kvw {
namespace {

// Brackets inside strings do not nest; an escaped quote does not end a string. Malformed text
// gets whatever depth its brackets give; nlohmann reports its syntax error afterwards.
void check_depth(std::string_view text, int max_depth) {
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_depth)
                throw JsonError(JsonFaultKind::TooDeep, {},
                                "arrays and objects nest deeper than " +
                                    std::to_string(max_depth) + " levels",
                                uint64_t(i));
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line L,
// column C: " prefix: the position is reported as a byte offset by JsonError, and callers
// translate it into their own line and column.
std::string syntax_detail(const nlohmann::json::parse_error& e) {
    const std::string what = e.what();
    const size_t column = what.find("column");
    const size_t colon = what.find(": ", column == std::string::npos ? 0 : column);
    return colon == std::string::npos ? what : what.substr(colon + 2);
}

}  // namespace

nlohmann::json parse_json_bounded(std::string_view text, int max_depth) {
    check_depth(text, max_depth);
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte counts the bytes read, so the fault is at the last one read.
        throw JsonError(JsonFaultKind::Syntax, {}, syntax_detail(e),
                        uint64_t(e.byte > 0 ? e.byte - 1 : 0));
    }
}

}  // namespace kvw
