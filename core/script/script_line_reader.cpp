#include "core/script/script_line_reader.h"

#include <algorithm>
#include <charconv>
#include <climits>

namespace kvw {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

}  // namespace

std::string_view trim_blanks(std::string_view s) {
    while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
    return s;
}

LineReader::LineReader(std::string_view line, const std::string& file, int line_no)
    : rest_(trim_blanks(line)), source_(rest_), file_(file), line_no_(line_no) {}

void LineReader::fail(ScriptErrorKind kind, const std::string& message) const {
    throw ScriptError(kind, file_, line_no_, std::string(source_), message);
}

std::string LineReader::word(const char* what) {
    if (rest_.empty()) fail(ScriptErrorKind::MissingArgument, std::string("expected ") + what);
    const size_t end = size_t(std::find_if(rest_.begin(), rest_.end(), is_blank) - rest_.begin());
    std::string w(rest_.substr(0, end));
    rest_ = trim_blanks(rest_.substr(end));
    return w;
}

std::string LineReader::rest(const char* what) {
    if (rest_.empty()) fail(ScriptErrorKind::MissingArgument, std::string("expected ") + what);
    std::string r(rest_);
    rest_ = {};
    return r;
}

int64_t LineReader::number(const char* what, int64_t min) {
    const std::string w = word(what);
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), value);
    if (ec != std::errc() || end != w.data() + w.size() || value < min ||
        value > int64_t(INT32_MAX))
        fail(ScriptErrorKind::BadNumber, std::string(what) + " must be an integer in [" +
                                             std::to_string(min) + ", 2147483647], not '" + w +
                                             "'");
    return value;
}

bool LineReader::choice(const char* what, const char* yes, const char* no) {
    const std::string w = word(what);
    if (w == yes) return true;
    if (w == no) return false;
    fail(ScriptErrorKind::BadValue,
         std::string(what) + " must be " + yes + " or " + no + ", not '" + w + "'");
}

void LineReader::end() {
    if (!rest_.empty())
        fail(ScriptErrorKind::ExtraArgument, "unexpected '" + std::string(rest_) + "'");
}

}  // namespace kvw
