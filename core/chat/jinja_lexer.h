#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kvw::jinja {

enum class TokenType : uint8_t {
    Text,           // template data, whitespace control already applied
    VariableBegin,  // {{
    VariableEnd,    // }}
    BlockBegin,     // {%
    BlockEnd,       // %}
    Name,
    String,  // text: the decoded value
    Integer,
    Float,
    Operator,  // text: its spelling ("//", "==", "(")
    End,
};

struct Token {
    TokenType type = TokenType::End;
    std::string text;
    int64_t integer = 0;
    double floating = 0.0;
    int line = 1;
    int column = 1;
};

// The tokens of a chat template as Jinja reads it in the environment transformers renders
// chat templates with: newlines normalised to "\n" and one trailing newline dropped
// (keep_trailing_newline off); `{%-` / `-%}` (and the same for `{{ }}` and `{# #}`) strip the
// whitespace beside the tag; trim_blocks drops the newline right after a block or comment
// tag; lstrip_blocks drops the spaces and tabs between a line's start and a block or comment
// tag (`{%+` keeps them). Comments are dropped. Throws ChatTemplateError (Syntax) for an
// unclosed tag, comment or string, a stray character or a malformed escape; Unsupported for
// `{% raw %}`.
std::vector<Token> lex_template(std::string_view source);

}  // namespace kvw::jinja
