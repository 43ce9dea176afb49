#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace kvw {

// What went wrong while reading or rendering a chat template.
enum class ChatTemplateErrorKind : uint8_t {
    Syntax,       // malformed template text: an unclosed block, a stray token, a bad literal
    Unsupported,  // valid Jinja this renderer does not implement: a tag, filter, test, method
    Type,         // an operation on values it does not apply to ("a" + 1, calling a string)
    Undefined,    // an attribute or item of an undefined value, an undefined callable
    Raised,       // the template called raise_exception(message)
    Limit,        // nesting deeper than kMaxTemplateDepth, output or a range too large
    BadInput,     // text that is not UTF-8 (the template or a message)
    Missing,      // a chat turn was asked of a model whose files carry no template
};

// A fault of a chat template, with where it is (1-based line and column of the template
// text; 0 when it concerns no place in the text, as invalid UTF-8 in a message does) and
// which construct it concerns ("filter 'wordwrap'", "tag 'macro'"), so a refused template
// can be reported by name.
class ChatTemplateError : public std::runtime_error {
public:
    ChatTemplateError(ChatTemplateErrorKind kind, int line, int column, std::string construct,
                      const std::string& detail);

    ChatTemplateErrorKind kind() const { return kind_; }
    int line() const { return line_; }
    int column() const { return column_; }
    const std::string& construct() const { return construct_; }
    // The message alone: for Raised, exactly what the template passed to raise_exception.
    const std::string& detail() const { return detail_; }

private:
    ChatTemplateErrorKind kind_;
    int line_;
    int column_;
    std::string construct_;
    std::string detail_;
};

const char* chat_template_error_kind_name(ChatTemplateErrorKind kind);

}  // namespace kvw
