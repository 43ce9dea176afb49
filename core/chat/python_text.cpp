#include "core/chat/python_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace kvw::python_text {

std::u32string decode(std::string_view utf8) {
    std::u32string out;
    out.reserve(utf8.size());
    for (size_t i = 0; i < utf8.size();) {
        const auto b = uint8_t(utf8[i]);
        const int n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
        char32_t c = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
        for (int k = 1; k < n && i + size_t(k) < utf8.size(); ++k)
            c = (c << 6) | (uint8_t(utf8[i + size_t(k)]) & 0x3F);
        out.push_back(c);
        i += size_t(n);
    }
    return out;
}

void append_code_point(std::string& out, char32_t c) {
    if (c < 0x80) {
        out.push_back(char(c));
    } else if (c < 0x800) {
        out.push_back(char(0xC0 | (c >> 6)));
        out.push_back(char(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        out.push_back(char(0xE0 | (c >> 12)));
        out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(char(0x80 | (c & 0x3F)));
    } else {
        out.push_back(char(0xF0 | (c >> 18)));
        out.push_back(char(0x80 | ((c >> 12) & 0x3F)));
        out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(char(0x80 | (c & 0x3F)));
    }
}

std::string encode(std::u32string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char32_t c : text) append_code_point(out, c);
    return out;
}

bool is_space(char32_t c) {
    // CPython's _Py_ascii_whitespace plus the Unicode code points whose bidirectional type is
    // WS, B or S or whose category is Zs (Objects/unicodetype_db.h).
    switch (c) {
        case 0x09:
        case 0x0A:
        case 0x0B:
        case 0x0C:
        case 0x0D:
        case 0x1C:
        case 0x1D:
        case 0x1E:
        case 0x1F:
        case 0x20:
        case 0x85:
        case 0xA0:
        case 0x1680:
        case 0x2028:
        case 0x2029:
        case 0x202F:
        case 0x205F:
        case 0x3000: return true;
        default: return c >= 0x2000 && c <= 0x200A;
    }
}

std::string strip(std::string_view s, const std::optional<std::string>& chars, bool left,
                  bool right) {
    const std::u32string text = decode(s);
    const std::u32string set = chars ? decode(*chars) : std::u32string();
    auto strippable = [&](char32_t c) {
        return chars ? set.find(c) != std::u32string::npos : is_space(c);
    };
    size_t begin = 0, end = text.size();
    if (left)
        while (begin < end && strippable(text[begin])) ++begin;
    if (right)
        while (end > begin && strippable(text[end - 1])) --end;
    return encode(std::u32string_view(text).substr(begin, end - begin));
}

std::vector<std::string> split(std::string_view s, const std::optional<std::string>& sep,
                               long maxsplit) {
    std::vector<std::string> out;
    if (sep) {
        size_t pos = 0;
        for (size_t hit; (maxsplit < 0 || long(out.size()) < maxsplit) &&
                         (hit = s.find(*sep, pos)) != std::string_view::npos;
             pos = hit + sep->size())
            out.emplace_back(s.substr(pos, hit - pos));
        out.emplace_back(s.substr(pos));
        return out;
    }
    const std::u32string text = decode(s);
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && is_space(text[i])) ++i;
        if (i == text.size()) break;
        if (maxsplit >= 0 && long(out.size()) == maxsplit) {
            // The rest, trailing whitespace included, is the last piece (CPython's rule).
            size_t end = text.size();
            while (end > i && is_space(text[end - 1])) --end;
            out.push_back(encode(std::u32string_view(text).substr(i, end - i)));
            break;
        }
        const size_t start = i;
        while (i < text.size() && !is_space(text[i])) ++i;
        out.push_back(encode(std::u32string_view(text).substr(start, i - start)));
    }
    return out;
}

std::string replace(std::string_view s, std::string_view from, std::string_view to, long count) {
    std::string out;
    if (from.empty()) {
        // Python inserts `to` before every code point and at the end.
        const std::u32string text = decode(s);
        long done = 0;
        for (const char32_t c : text) {
            if (count < 0 || done < count) {
                out.append(to);
                ++done;
            }
            append_code_point(out, c);
        }
        if (count < 0 || done < count) out.append(to);
        return out;
    }
    size_t pos = 0;
    long done = 0;
    for (size_t hit; (count < 0 || done < count) && (hit = s.find(from, pos)) != s.npos;
         pos = hit + from.size(), ++done) {
        out.append(s.substr(pos, hit - pos));
        out.append(to);
    }
    out.append(s.substr(pos));
    return out;
}

long find(std::string_view s, std::string_view needle) {
    const size_t hit = s.find(needle);
    if (hit == std::string_view::npos) return -1;
    return long(decode(s.substr(0, hit)).size());
}

std::string repr_ascii_string(std::string_view s) {
    const bool has_single = s.find('\'') != s.npos;
    const bool has_double = s.find('"') != s.npos;
    const char quote = has_single && !has_double ? '"' : '\'';
    std::string out(1, quote);
    for (const char ch : s) {
        const auto c = uint8_t(ch);
        if (c == '\\' || c == uint8_t(quote)) {
            out += '\\';
            out += ch;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7F) {
            static const char* hex = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 0xF];
        } else {
            out += ch;
        }
    }
    out += quote;
    return out;
}

std::string repr_float(double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    // The shortest round-trip digits in scientific form: [-]d[.ddd]e±XX.
    char buf[64];
    const auto result = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
    const std::string sci(buf, result.ptr);
    const size_t e = sci.find('e');
    const bool negative = sci[0] == '-';
    std::string digits;
    for (size_t i = negative ? 1 : 0; i < e; ++i)
        if (sci[i] != '.') digits += sci[i];
    const int exponent = std::atoi(sci.c_str() + e + 1);
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();

    std::string out = negative ? "-" : "";
    const int point = exponent + 1;   // digits before the decimal point
    if (point > -4 && point <= 16) {  // decimal exponent -4..15
        if (point <= 0) {
            out += "0." + std::string(size_t(-point), '0') + digits;
        } else if (size_t(point) >= digits.size()) {
            out += digits + std::string(size_t(point) - digits.size(), '0') + ".0";
        } else {
            out += digits.substr(0, size_t(point)) + "." + digits.substr(size_t(point));
        }
        return out;
    }
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    const int shown = std::abs(exponent);
    out += exponent < 0 ? "e-" : "e+";
    if (shown < 10) out += '0';
    out += std::to_string(shown);
    return out;
}

bool is_ascii(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return uint8_t(c) < 0x80; });
}

}  // namespace kvw::python_text
