#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/chat/chat_template.h"
#include "core/model/tokenizer.h"

namespace kvw {

// A prompt entered as one chat turn, as `kvw generate --chat` and the window's "as a chat
// turn" send it.
struct ChatTurn {
    std::string user;
    std::optional<std::string> system;  // a system turn before the user's
    // What strftime_now reports (ChatTemplateOptions::today); absent: not defined.
    std::optional<CalendarDate> today;
    // More names for the template (ChatTemplateOptions::variables): enable_thinking, tools, ...
    std::vector<std::pair<std::string, jinja::Value>> variables = {};
};

struct ChatPrompt {
    std::string text;          // the template's rendering
    std::vector<int32_t> ids;  // its tokens, starting the sequence
};

// The turn rendered with the vocabulary's chat template (add_generation_prompt on; bos_token
// and eos_token the text of the vocabulary's BOS / EOS pieces) and tokenized as the start of
// a sequence, with the template's control pieces as their ids (Tokenizer::encode_with_controls,
// llama.cpp's parse_special). When the text starts with the BOS piece (Llama 3 and Mistral
// templates write it) that is the BOS and no other is added; otherwise BOS comes first when the
// vocabulary adds one (Vocabulary::add_bos), as llama.cpp tokenizes a rendered chat.
// Throws ChatTemplateError: Missing when the vocabulary has no template, and whatever
// render_chat throws.
ChatPrompt render_chat_prompt(const Tokenizer& tokenizer, const ChatTurn& turn);

// Today's date in UTC from the system clock: what the CLI and the window tell a template
// unless told otherwise (the renderer itself never reads the clock).
CalendarDate utc_date_today();

// Whether a vocabulary's template can serve as a chat: what `kvw info` reports and what
// enables the window's "as a chat turn".
struct ChatTemplateSupport {
    bool present = false;
    size_t bytes = 0;
    std::optional<std::string> problem;  // why it cannot be rendered (check_chat_template)
    bool usable() const { return present && !problem; }
    // "none", "4312 bytes" or "4312 bytes, not renderable: chat template line 3, ..."
    std::string describe() const;
};
ChatTemplateSupport chat_template_support(const Vocabulary& vocab);

}  // namespace kvw
