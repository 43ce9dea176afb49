#include "core/chat/jinja_lexer.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "core/chat/chat_template_error.h"
#include "core/chat/python_text.h"

namespace kvw::jinja {
namespace {

using Kind = ChatTemplateErrorKind;

// Longest first, so "//" is not read as two "/".
constexpr std::string_view kOperators[] = {
    "**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<",
    ">",  "=",  ".",  ",",  ":",  "|",  "(", ")", "[", "]", "{", "}",
};

std::string normalise_newlines(std::string_view source) {
    std::string out;
    out.reserve(source.size());
    for (size_t i = 0; i < source.size(); ++i) {
        if (source[i] == '\r') {
            out += '\n';
            if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
        } else {
            out += source[i];
        }
    }
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

// Inside a tag only ASCII whitespace separates tokens; other characters are refused there.
bool is_ascii_space(char c) { return uint8_t(c) < 0x80 && python_text::is_space(char32_t(c)); }
bool is_name_start(char c) { return std::isalpha(uint8_t(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(uint8_t(c)) || c == '_'; }
int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

class Lexer {
public:
    explicit Lexer(std::string_view source) : src_(normalise_newlines(source)) {}

    std::vector<Token> run() {
        bool line_starting = true;  // the last tag ended a line (for lstrip_blocks)
        while (pos_ < src_.size()) {
            const size_t hit = next_tag(pos_);
            std::string text = src_.substr(pos_, hit - pos_);
            if (hit == src_.size()) {
                emit_text(std::move(text), pos_);
                break;
            }
            const char kind = src_[hit + 1];  // '{', '%' or '#'
            const char sign = hit + 2 < src_.size() ? src_[hit + 2] : '\0';
            if (sign == '-') {
                text = python_text::strip(text, std::nullopt, false, true);
            } else if (sign != '+' && kind != '{') {
                // lstrip_blocks: only whitespace between the line's start and the tag.
                const size_t line_start =
                    text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
                if ((line_start > 0 || line_starting) &&
                    only_spaces(std::string_view(text).substr(line_start)))
                    text.resize(line_start);
            }
            emit_text(std::move(text), pos_);
            pos_ = hit + 2 + (sign == '-' || sign == '+' ? 1 : 0);
            if (kind == '#')
                skip_comment(hit);
            else
                lex_tag(hit, kind == '{');
            line_starting = pos_ > 0 && src_[pos_ - 1] == '\n';
        }
        tokens_.push_back(make(TokenType::End, src_.size()));
        return std::move(tokens_);
    }

private:
    size_t next_tag(size_t from) const {
        for (size_t i = from; i + 1 < src_.size(); ++i)
            if (src_[i] == '{' && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#'))
                return i;
        return src_.size();
    }

    static bool only_spaces(std::string_view s) {
        if (s.empty()) return false;
        const std::u32string text = python_text::decode(s);
        return std::all_of(text.begin(), text.end(), python_text::is_space);
    }

    // Line and column (in code points) of byte `at`, counted on from the last place asked
    // for: tokens come in order, so a whole template costs one pass.
    void location(size_t at, int& line, int& column) const {
        if (at < cursor_.at) cursor_ = Cursor{};
        for (; cursor_.at < at; ++cursor_.at) {
            const auto c = uint8_t(src_[cursor_.at]);
            if (c == '\n') {
                ++cursor_.line;
                cursor_.column = 1;
            } else if ((c & 0xC0) != 0x80) {
                ++cursor_.column;
            }
        }
        line = cursor_.line;
        column = cursor_.column;
    }

    Token make(TokenType type, size_t at, std::string text = {}) const {
        Token t;
        t.type = type;
        t.text = std::move(text);
        location(at, t.line, t.column);
        return t;
    }

    [[noreturn]] void fail(Kind kind, size_t at, std::string construct,
                           const std::string& detail) const {
        int line = 0, column = 0;
        location(at, line, column);
        throw ChatTemplateError(kind, line, column, std::move(construct), detail);
    }

    void emit_text(std::string text, size_t at) {
        if (!text.empty()) tokens_.push_back(make(TokenType::Text, at, std::move(text)));
    }

    // After a tag's end: `-` strips all whitespace that follows, trim_blocks one newline
    // after a block or comment.
    void after_end(bool strip, bool trim_newline) {
        if (strip) {
            const std::string rest =
                python_text::strip(std::string_view(src_).substr(pos_), std::nullopt, true, false);
            pos_ = src_.size() - rest.size();
        } else if (trim_newline && pos_ < src_.size() && src_[pos_] == '\n') {
            ++pos_;
        }
    }

    void skip_comment(size_t open) {
        const size_t close = src_.find("#}", pos_);
        if (close == std::string::npos)
            fail(Kind::Syntax, open, "comment", "'{#' is never closed by '#}'");
        const bool strip = close > pos_ && src_[close - 1] == '-';
        pos_ = close + 2;
        after_end(strip, true);
    }

    void lex_tag(size_t open, bool variable) {
        tokens_.push_back(make(variable ? TokenType::VariableBegin : TokenType::BlockBegin, open));
        if (!variable) refuse_raw(open);
        const std::string_view close = variable ? "}}" : "%}";
        int brackets = 0;
        while (true) {
            skip_whitespace();
            if (pos_ >= src_.size())
                fail(Kind::Syntax, open, variable ? "'{{'" : "'{%'",
                     std::string("is never closed by '") + std::string(close) + "'");
            const std::string_view rest = std::string_view(src_).substr(pos_);
            if (brackets == 0 && (rest.starts_with(close) ||
                                  (rest[0] == '-' && rest.substr(1).starts_with(close)))) {
                const bool strip = rest[0] == '-';
                tokens_.push_back(
                    make(variable ? TokenType::VariableEnd : TokenType::BlockEnd, pos_));
                pos_ += close.size() + (strip ? 1 : 0);
                after_end(strip, !variable);
                return;
            }
            lex_expression_token(brackets);
        }
    }

    void refuse_raw(size_t open) {
        size_t p = pos_;
        while (p < src_.size() && is_ascii_space(src_[p])) ++p;
        if (src_.compare(p, 3, "raw") == 0 && (p + 3 >= src_.size() || !is_name_char(src_[p + 3])))
            fail(Kind::Unsupported, open, "tag 'raw'", "raw blocks are not implemented");
    }

    void skip_whitespace() {
        while (pos_ < src_.size() && is_ascii_space(src_[pos_])) ++pos_;
    }

    void lex_expression_token(int& brackets) {
        const size_t at = pos_;
        const char c = src_[pos_];
        if (is_name_start(c)) {
            while (pos_ < src_.size() && is_name_char(src_[pos_])) ++pos_;
            tokens_.push_back(make(TokenType::Name, at, src_.substr(at, pos_ - at)));
        } else if (std::isdigit(uint8_t(c))) {
            lex_number(at);
        } else if (c == '\'' || c == '"') {
            lex_string(at, c);
        } else {
            for (const std::string_view op : kOperators) {
                if (std::string_view(src_).substr(pos_).starts_with(op)) {
                    if (op == "(" || op == "[" || op == "{") ++brackets;
                    if ((op == ")" || op == "]" || op == "}") && brackets > 0) --brackets;
                    pos_ += op.size();
                    tokens_.push_back(make(TokenType::Operator, at, std::string(op)));
                    return;
                }
            }
            fail(Kind::Syntax, at, "", std::string("unexpected character '") + c + "'");
        }
    }

    void lex_number(size_t at) {
        auto digits = [&] {
            while (pos_ < src_.size() && (std::isdigit(uint8_t(src_[pos_])) ||
                                          (src_[pos_] == '_' && pos_ + 1 < src_.size() &&
                                           std::isdigit(uint8_t(src_[pos_ + 1])))))
                ++pos_;
        };
        digits();
        bool is_float = false;
        if (pos_ + 1 < src_.size() && src_[pos_] == '.' && std::isdigit(uint8_t(src_[pos_ + 1]))) {
            ++pos_;
            digits();
            is_float = true;
        }
        if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
            size_t p = pos_ + 1;
            if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
            if (p < src_.size() && std::isdigit(uint8_t(src_[p]))) {
                pos_ = p;
                digits();
                is_float = true;
            }
        }
        std::string spelled = src_.substr(at, pos_ - at);
        std::erase(spelled, '_');
        Token t = make(is_float ? TokenType::Float : TokenType::Integer, at, spelled);
        if (is_float) {
            t.floating = std::strtod(spelled.c_str(), nullptr);
        } else {
            errno = 0;
            const long long v = std::strtoll(spelled.c_str(), nullptr, 10);
            if (errno == ERANGE)
                fail(Kind::Limit, at, "integer literal", spelled + " does not fit in 64 bits");
            t.integer = v;
        }
        tokens_.push_back(std::move(t));
    }

    // A string literal, decoded as Python's unicode-escape codec reads Jinja's literals.
    void lex_string(size_t at, char quote) {
        std::string value;
        ++pos_;
        while (true) {
            if (pos_ >= src_.size())
                fail(Kind::Syntax, at, "string literal", "the string is never closed");
            const char c = src_[pos_];
            if (c == quote) {
                ++pos_;
                break;
            }
            if (c != '\\') {
                value += c;
                ++pos_;
                continue;
            }
            if (pos_ + 1 >= src_.size())
                fail(Kind::Syntax, at, "string literal", "the string is never closed");
            const size_t escape_at = pos_;
            const char e = src_[pos_ + 1];
            pos_ += 2;
            switch (e) {
                case '\n': break;
                case '\\': value += '\\'; break;
                case '\'': value += '\''; break;
                case '"': value += '"'; break;
                case 'a': value += '\a'; break;
                case 'b': value += '\b'; break;
                case 'f': value += '\f'; break;
                case 'n': value += '\n'; break;
                case 'r': value += '\r'; break;
                case 't': value += '\t'; break;
                case 'v': value += '\v'; break;
                case 'x': append_hex(value, 2, escape_at); break;
                case 'u': append_hex(value, 4, escape_at); break;
                case 'U': append_hex(value, 8, escape_at); break;
                case 'N':
                    fail(Kind::Unsupported, escape_at, "escape '\\N{...}'",
                         "named Unicode escapes are not implemented");
                default:
                    if (e >= '0' && e <= '7') {
                        char32_t code = char32_t(e - '0');
                        for (int k = 0;
                             k < 2 && pos_ < src_.size() && src_[pos_] >= '0' && src_[pos_] <= '7';
                             ++k)
                            code = code * 8 + char32_t(src_[pos_++] - '0');
                        python_text::append_code_point(value, code);
                    } else if (uint8_t(e) >= 0x80) {
                        fail(Kind::Unsupported, escape_at, "escape",
                             "a backslash before a non-ASCII character");
                    } else {
                        value += '\\';  // Python keeps an unknown escape as written
                        value += e;
                    }
            }
        }
        tokens_.push_back(make(TokenType::String, at, std::move(value)));
    }

    void append_hex(std::string& value, int digits, size_t escape_at) {
        char32_t code = 0;
        for (int k = 0; k < digits; ++k) {
            const int h = pos_ < src_.size() ? hex_value(src_[pos_]) : -1;
            if (h < 0)
                fail(Kind::Syntax, escape_at, "escape",
                     "expected " + std::to_string(digits) + " hexadecimal digits");
            code = code * 16 + char32_t(h);
            ++pos_;
        }
        if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
            fail(Kind::Syntax, escape_at, "escape", "not a Unicode scalar value");
        python_text::append_code_point(value, code);
    }

    struct Cursor {
        size_t at = 0;
        int line = 1;
        int column = 1;
    };

    std::string src_;
    size_t pos_ = 0;
    std::vector<Token> tokens_;
    mutable Cursor cursor_;
};

}  // namespace

std::vector<Token> lex_template(std::string_view source) { return Lexer(source).run(); }

}  // namespace kvw::jinja
