#pragma once
// Reads the words of one .kvs line left to right; every complaint becomes a ScriptError that
// names the file, the line and the command as written.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/script/script_error.h"

namespace kvw {

std::string_view trim_blanks(std::string_view s);

class LineReader {
public:
    LineReader(std::string_view line, const std::string& file, int line_no);

    [[noreturn]] void fail(ScriptErrorKind kind, const std::string& message) const;
    bool at_end() const { return rest_.empty(); }
    // The next blank-separated word; MissingArgument naming `what` when there is none.
    std::string word(const char* what);
    // The rest of the line, trimmed: TEXT, SPEC, JSON.
    std::string rest(const char* what);
    // An integer word in [min, INT32_MAX] (BadNumber otherwise).
    int64_t number(const char* what, int64_t min);
    // `yes` -> true, `no` -> false, anything else BadValue.
    bool choice(const char* what, const char* yes, const char* no);
    // ExtraArgument when words are left.
    void end();
    std::string_view source() const { return source_; }

private:
    std::string_view rest_;
    std::string_view source_;
    const std::string& file_;
    int line_no_;
};

}  // namespace kvw
