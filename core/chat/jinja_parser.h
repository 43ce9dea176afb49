#pragma once
#include <string_view>

#include "core/chat/jinja_ast.h"

namespace kvw::jinja {

// The statements of a chat template, parsed with Jinja's grammar and operator precedence
// (`|` filters and `is` tests bind tighter than arithmetic; `not` looser than comparisons).
// Tags: if / elif / else, for (with tuple targets, an `if` filter and an else branch),
// set (a name, a namespace attribute, or a block), break, continue. Any other tag is refused
// by name (ChatTemplateErrorKind::Unsupported, "tag 'macro'"), as are `*args`, `**kwargs`
// and recursive loops. Throws ChatTemplateError with the line and column of the fault:
// Syntax for malformed text (an unclosed block names the block and where it was opened),
// Limit for nesting deeper than kMaxTemplateDepth.
Body parse_template(std::string_view source);

}  // namespace kvw::jinja
