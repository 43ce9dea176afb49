#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/chat/jinja_ast.h"
#include "core/chat/jinja_builtins.h"

namespace kvw::jinja {

// Bounds of one rendering, so a template cannot run without end or fill memory: the output
// (a chat prompt is a few kilobytes) and the iterations of all loops together (a chat
// template walks its messages a few times; a million is far beyond any conversation).
inline constexpr size_t kMaxOutputBytes = size_t(64) << 20;
inline constexpr int64_t kMaxLoopIterations = int64_t(1) << 20;

// Runs a parsed template with `variables` (messages, add_generation_prompt, ...) on top of the
// global functions (jinja_builtins.h; strftime_now only with `today`). Scoping is Jinja's: a
// for loop's body starts each iteration in a fresh scope (a `set` there is gone after the
// loop; namespaces carry values out), if blocks have none. Throws ChatTemplateError with the
// line and column of the expression or statement at fault.
std::string evaluate_template(const Body& body,
                              const std::vector<std::pair<std::string, Value>>& variables,
                              const std::optional<CalendarDate>& today);

}  // namespace kvw::jinja
