#include "core/chat/chat_prompt.h"

#include <ctime>

namespace kvw {
namespace {

std::string piece_or_empty(const Vocabulary& vocab, int32_t id) {
    return id >= 0 && id < vocab.size() ? vocab.pieces[size_t(id)] : std::string();
}

}  // namespace

ChatPrompt render_chat_prompt(const Tokenizer& tokenizer, const ChatTurn& turn) {
    const Vocabulary& vocab = tokenizer.vocabulary();
    if (!vocab.chat_template)
        throw ChatTemplateError(ChatTemplateErrorKind::Missing, 0, 0, "",
                                "the model's files carry no chat template "
                                "(GGUF tokenizer.chat_template, tokenizer_config.json "
                                "chat_template, chat_template.jinja)");
    std::vector<ChatMessage> messages;
    if (turn.system) messages.push_back({"system", *turn.system});
    messages.push_back({"user", turn.user});
    ChatTemplateOptions options;
    options.add_generation_prompt = true;
    options.bos_token = piece_or_empty(vocab, vocab.bos_id);
    options.eos_token = piece_or_empty(vocab, vocab.eos_id);
    options.today = turn.today;
    options.variables = turn.variables;

    ChatPrompt prompt;
    prompt.text = render_chat(*vocab.chat_template, messages, options);
    // The template's special tokens as their ids. A template that writes the BOS has it
    // first; otherwise it goes first when the vocabulary adds one.
    prompt.ids = tokenizer.encode_with_controls(prompt.text);
    const bool template_wrote_bos =
        !options.bos_token.empty() && prompt.text.starts_with(options.bos_token);
    if (!template_wrote_bos && vocab.add_bos && vocab.bos_id >= 0)
        prompt.ids.insert(prompt.ids.begin(), vocab.bos_id);
    return prompt;
}

CalendarDate utc_date_today() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    return {utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday};
}

std::string ChatTemplateSupport::describe() const {
    if (!present) return "none";
    std::string out = std::to_string(bytes) + " bytes";
    if (problem) out += ", not renderable: " + *problem;
    return out;
}

ChatTemplateSupport chat_template_support(const Vocabulary& vocab) {
    ChatTemplateSupport support;
    if (!vocab.chat_template) return support;
    support.present = true;
    support.bytes = vocab.chat_template->size();
    try {
        check_chat_template(*vocab.chat_template);
    } catch (const ChatTemplateError& e) {
        support.problem = e.what();
    }
    return support;
}

}  // namespace kvw
