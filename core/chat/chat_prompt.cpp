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

    ChatPrompt prompt;
    prompt.text = render_chat(*vocab.chat_template, messages, options);
    const std::string& bos = options.bos_token;
    if (!bos.empty() && prompt.text.starts_with(bos)) {
        // The template wrote the BOS: that one, as an id (a SentencePiece encoder would spell
        // "<s>" out as characters), and the rest without another.
        prompt.ids.push_back(vocab.bos_id);
        const std::vector<int32_t> rest =
            tokenizer.encode(std::string_view(prompt.text).substr(bos.size()), false);
        prompt.ids.insert(prompt.ids.end(), rest.begin(), rest.end());
    } else {
        prompt.ids = tokenizer.encode(prompt.text, true);
    }
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
