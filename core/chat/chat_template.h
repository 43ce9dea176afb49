#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/chat/chat_template_error.h"
#include "core/chat/jinja_builtins.h"
#include "core/chat/jinja_value.h"

// Rendering a model's chat template (GGUF tokenizer.chat_template, tokenizer_config.json
// chat_template) for a conversation: the one entry point of core/chat
// (docs/ARCHITECTURE.md §2.2).
namespace kvw {

using jinja::CalendarDate;

struct ChatMessage {
    std::string role;  // "system", "user", "assistant"
    std::string content;
};

struct ChatTemplateOptions {
    // End with the header of an assistant turn, so the model writes the reply.
    bool add_generation_prompt = true;
    // The special tokens' text, as transformers passes them (bos_token, eos_token).
    std::string bos_token;
    std::string eos_token;
    // The date strftime_now reports (Llama 3.1 writes "Today Date: 26 Jul 2024"). Absent:
    // strftime_now is not defined and templates use their own fallback. Taken from here and
    // never from the clock, so the same options give the same text.
    std::optional<CalendarDate> today;
    // More names for the template, set after the standard ones (so they may replace them):
    // enable_thinking (Qwen 3), tools, date_string, ...
    std::vector<std::pair<std::string, jinja::Value>> variables;
};

// The template's text for `messages` (each a dict with at least role and content). The
// template sees what transformers' apply_chat_template gives it: messages,
// add_generation_prompt, tools = none, documents = none, bos_token, eos_token, the global
// functions raise_exception, range, namespace and (with `today`) strftime_now; it is read
// with trim_blocks and lstrip_blocks on and its tojson is json.dumps(ensure_ascii=False).
// Throws ChatTemplateError: Syntax / Unsupported naming the construct with its line and
// column, Raised carrying the template's own message (raise_exception), BadInput for text
// that is not UTF-8.
std::string render_chat(std::string_view template_text, const jinja::Value& messages,
                        const ChatTemplateOptions& options);
std::string render_chat(std::string_view template_text, const std::vector<ChatMessage>& messages,
                        const ChatTemplateOptions& options);

// Whether the template parses: a template the renderer cannot read is found when a model
// loads, not at its first prompt. Throws as render_chat does.
void check_chat_template(std::string_view template_text);

// A JSON text (a conversation, a value for `variables`) as a template value: objects keep
// their key order. Throws ChatTemplateError (BadInput) for malformed JSON, a number beyond
// 64-bit integers, or nesting deeper than the JSON readers allow.
jinja::Value chat_value_from_json(std::string_view json_text);

}  // namespace kvw
